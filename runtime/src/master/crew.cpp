#include "master/crew.hpp"

#include <algorithm>

#include "diagnostics/log.hpp"
#include "runs/run_dir.hpp"
#include "wire/codec.hpp"

namespace fiber::master {

using wire::Type;

namespace {

// How long a worker whose connection closed waits for its backend to say
// how it ended; a local worker's exit shows within a tick.
constexpr std::chrono::milliseconds kExitReportWait{2000};

}  // namespace

Crew::Crew(const PoolServiceOptions& options, const PoolPhase& phase, const TaskTable& tasks,
           std::unique_ptr<backend::Backend> backend, Outbox& outbox, PoolStats& stats)
    : options_(options),
      phase_(phase),
      tasks_(tasks),
      backend_(std::move(backend)),
      outbox_(outbox),
      stats_(stats),
      deadlines_{options.settings.start_timeout, /*probe_interval=*/options.settings.heartbeat_timeout,
                 options.settings.heartbeat_timeout},
      sizer_(options.elastic ? Sizer(*options.elastic) : Sizer(options.processes)),
      awaiting_exit_(deadlines_.heartbeat_timeout) {}

Crew::~Crew() {
  for (const std::string& id : workers_.Held()) SayLoss(*workers_.Settle(id, nullptr));
  backend_->KillAll();
}

std::optional<std::string> Crew::StartWorkers(Clock::time_point now) {
  // A closed pool still replaces workers while its queued tasks need them.
  if (!phase_.running() || (phase_.closing && tasks_.size() == 0)) return std::nullopt;
  // The rest start as these connect (OnHello) or are lost.
  const int count = sizer_.ToStart(workers_.Live(), workers_.Starting(), backend_->MaxStarting());
  std::vector<backend::Launch> launches;
  for (int n = 0; n < count; ++n) {
    backend::Launch launch{options_.bootstrap, {}, options_.resources};
    launch.bootstrap.worker_id = options_.new_worker_id();
    if (!options_.settings.run_dir.empty())
      launch.log_file = runs::WorkerLogPath(options_.settings.run_dir, launch.bootstrap.worker_id);
    launches.push_back(std::move(launch));
  }
  if (launches.empty()) return std::nullopt;
  // All at once: a backend may start them with one request (a job array).
  std::string err;
  if (!backend_->StartMany(launches, &err)) {
    for (const backend::Launch& launch : launches) backend_->Kill(launch.bootstrap.worker_id);  // any that started
    return BackendCannotStartWhy(backend_->name(), err);
  }
  for (const backend::Launch& launch : launches) workers_.Add(launch.bootstrap.worker_id, now);
  stats_.WorkersStarted(launches.size());
  return std::nullopt;
}

bool Crew::Grow() {
  if (phase_.closing || phase_.broken || !tasks_.HasPending()) return false;
  return sizer_.Grow(tasks_.pending(), workers_.Live(), workers_.Starting());
}

void Crew::Resize(int processes, Clock::time_point now) {
  sizer_.Resize(processes);
  Retire(now);
}

void Crew::Retire(Clock::time_point now) {
  for (const std::string& id : workers_.PickRetirees(sizer_.target(), tasks_)) {
    Worker& w = *workers_.Find(id);
    workers_.Retire(w);
    if (!w.connected) {
      backend_->Kill(id);
    } else if (tasks_.Leases(id) == 0) {
      (void)SendControl(id, Type::kStop, now);
    }
  }
}

Crew::Hello Crew::Connect(const std::string& id, long pid, Clock::time_point now) {
  if (!workers_.Connect(id, pid)) return Hello::kRefused;
  if (!outbox_.Send(id, wire::Encode(wire::Welcome{options_.channel,
                                                   static_cast<std::uint32_t>(options_.settings.prefetch),
                                                   options_.initializer.function,
                                                   options_.initializer.args,
                                                   options_.task_timeout.has_value()})))
    return Hello::kUnreachable;
  workers_.Find(id)->last_sent = now;
  if (options_.on_connected) options_.on_connected(id, pid);
  log::Info("worker " + id + " (pid " + std::to_string(pid) + ") connected");
  return Hello::kWelcomed;
}

void Crew::OnReady(Worker& worker, int credit, Clock::time_point now) {
  workers_.SetCredit(worker, credit);
  worker.idle_since = now;
  sizer_.Started();
  Retire(now);
}

bool Crew::OnIdle(const std::string& id, Clock::time_point now) {
  Worker& w = *workers_.Find(id);
  const bool spent = options_.max_tasks_per_child && w.dealt >= *options_.max_tasks_per_child &&
                     w.state != WorkerState::kRetiring;
  if (spent) {
    log::Info("worker " + id + " ran its " + std::to_string(w.dealt) +
              " tasks (max_tasks_per_child); a new worker replaces it");
    workers_.Retire(w);
  }
  if (w.state == WorkerState::kRetiring && !w.stop_sent) (void)SendControl(id, Type::kStop, now);
  return spent;
}

void Crew::RetireIdle(Clock::time_point now) {
  const auto cutoff = sizer_.IdleCutoff(now);
  if (!cutoff || phase_.closing || phase_.broken || tasks_.HasPending()) return;
  const std::vector<std::string> idle = workers_.IdleSince(*cutoff, tasks_);
  const int retire = sizer_.RetireIdle(workers_.Live(), static_cast<int>(idle.size()));
  for (int i = 0; i < retire; ++i) {
    workers_.Retire(*workers_.Find(idle[static_cast<std::size_t>(i)]));
    (void)SendControl(idle[static_cast<std::size_t>(i)], Type::kStop, now);
  }
}

void Crew::StopAll(Clock::time_point now) {
  std::vector<std::string> ids;
  for (const auto& [id, w] : workers_.all()) ids.push_back(id);
  for (const auto& id : ids) {
    Worker& w = *workers_.Find(id);
    workers_.Retire(w);
    if (!w.connected) {
      backend_->Kill(id);
    } else if (!w.stop_sent) {
      (void)SendControl(id, Type::kStop, now);
    }
  }
}

void Crew::StopAndKillAll(Clock::time_point now) {
  for (const auto& [id, w] : workers_.all()) {
    if (w.connected && !w.stop_sent) (void)SendControl(id, Type::kStop, now);
    backend_->Kill(id);
  }
}

void Crew::KillAll() {
  for (const auto& [id, w] : workers_.all()) backend_->Kill(id);
  for (const auto& [id, w] : workers_.all()) workers_.Retire(*workers_.Find(id));
}

bool Crew::ConnectionClosed(const std::string& id, Clock::time_point now) {
  Worker* w = workers_.Find(id);
  if (!w) return false;
  // One asked to stop with nothing left to do is simply gone.
  if (phase_.terminating || (w->state == WorkerState::kRetiring && tasks_.Leases(id) == 0)) return true;
  if (w->closed_at) return false;
  w->closed_at = now;
  w->credit = 0;  // nothing more is dealt to it
  backend_->ConnectionClosed(id);
  return false;
}

bool Crew::Probe(const std::string& id, Clock::time_point now) {
  return SendControl(id, Type::kHeartbeat, now);
}

bool Crew::SendControl(const std::string& id, Type type, Clock::time_point now) {
  const bool sent = outbox_.Send(id, wire::EncodeControl(type, options_.channel));
  if (Worker* w = workers_.Find(id)) {
    w->last_sent = now;
    if (type == Type::kStop) workers_.MarkStopSent(*w, now);
  }
  return sent;
}

std::optional<Crew::Loss> Crew::End(const std::string& id, const backend::EndCause& cause,
                                    Clock::time_point now) {
  const Worker* found = workers_.Find(id);
  if (!found) return std::nullopt;
  const Worker worker = *found;
  const bool retiring = worker.state == WorkerState::kRetiring;
  // A worker asked to stop with nothing left to do that goes is no loss,
  // however its going shows first (its connection closing, its exit).
  const bool done = phase_.terminating || (retiring && tasks_.Leases(id) == 0);
  const std::string running = tasks_.Running(id);
  // Lost with its connection, as a Slurm job past its time limit or an
  // evicted pod often is before its engine tells: its tasks move on now,
  // its loss is said and counted once the engine tells why (Poll), or
  // its wait for that ends.
  const bool held = !done && std::string_view(cause.word) == backend::end_word::kConnectionLost;
  const WorkerEnd ended{id, cause, running, tasks_.RetriesLeft(id), !done, now, worker.pid, worker.tasks_done};
  if (!done && !held) SayLoss(ended);
  workers_.End(ended, held);
  backend_->Kill(id);
  if (!worker.connected && !phase_.terminating && !retiring) sizer_.StartFailed();
  awaiting_exit_.Await(id, now);  // the pool finishes once its backend has seen it end
  return Loss{LossWhy(cause, running), !done};
}

std::vector<ExitLoss> Crew::Poll(Clock::time_point now) {
  std::vector<ExitLoss> lost;
  for (const backend::Exit& exit : backend_->Poll()) {
    if (options_.on_exit) options_.on_exit(exit);
    const ExitMeaning meaning = MeaningOf(exit, workers_.Find(exit.worker_id), tasks_.Leases(exit.worker_id) > 0,
                                          phase_.terminating);
    if (meaning == ExitMeaning::kRetired) {
      workers_.End({exit.worker_id, exit.cause, "", 0, false, now});
    } else if (meaning != ExitMeaning::kSettled) {
      lost.push_back(LossOf(exit, meaning, backend_->name(), options_.settings.run_dir));
    } else if (const auto loss = workers_.Settle(exit.worker_id, exit.cause.engine_only ? &exit.cause : nullptr)) {
      SayLoss(*loss);  // lost with its connection; now the engine said why
    }
    awaiting_exit_.Seen(exit.worker_id);
  }
  for (const std::string& id : backend_->Queued())
    if (Worker* w = workers_.Find(id); w && !w->connected) w->started = now;
  // A backend that never reports the exit holds up nobody for long.
  for (const std::string& id : awaiting_exit_.GiveUp(now))
    if (const auto loss = workers_.Settle(id, nullptr)) SayLoss(*loss);
  return lost;
}

std::vector<std::pair<std::string, backend::EndCause>> Crew::Overdue(Clock::time_point now) {
  std::vector<std::pair<std::string, backend::EndCause>> lose;
  // Connections closed a while ago whose end no backend reported.
  const auto wait = std::min<std::chrono::milliseconds>(kExitReportWait, deadlines_.heartbeat_timeout);
  for (const auto& [id, w] : workers_.all())
    if (w.closed_at && now - *w.closed_at >= wait)
      lose.emplace_back(id, backend::Because(backend::end_word::kConnectionLost,
                                             "its connection was lost and no end of its process was "
                                             "reported (a frozen process, or a network failure)"));
  const auto losing = [&](const std::string& id) {
    return std::any_of(lose.begin(), lose.end(), [&](const auto& l) { return l.first == id; });
  };
  const DueWork due = workers_.Due(now, deadlines_);
  for (const auto& [id, why] : due.lost)
    if (!losing(id)) lose.emplace_back(id, why);
  for (const auto& id : due.kill)
    if (!losing(id)) backend_->Kill(id);  // asked to stop, still running
  for (const auto& id : due.heartbeat)
    if (!losing(id) && !SendControl(id, Type::kHeartbeat, now) && ConnectionClosed(id, now))
      lose.emplace_back(id, backend::Because(backend::end_word::kConnectionLost, "its connection closed"));
  return lose;
}

std::vector<WorkerSnapshot> Crew::Snapshot(Clock::time_point now) const {
  return SnapshotWorkers(workers_, tasks_, backend_->Queued(), now);
}

}  // namespace fiber::master
