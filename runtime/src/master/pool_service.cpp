#include "master/pool_service.hpp"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <set>

#include "diagnostics/log.hpp"
#include "os/run_capture.hpp"
#include "runs/run_dir.hpp"
#include "wire/limits.hpp"
#include "wire/task_batch.hpp"

namespace fiber::master {

using detail::Outcome;
using wire::Type;

namespace {

// The one place a worker's report of a call becomes what the caller sees.
Outcome ToOutcome(const wire::OutcomeView& view) {
  switch (view.kind) {
    case wire::OutcomeKind::kValue: return {Outcome::Kind::kValue, std::string(view.value), {}};
    case wire::OutcomeKind::kRaised:
      return {Outcome::Kind::kRemoteError, std::string(view.raised.message),
              std::string(view.raised.type)};
    case wire::OutcomeKind::kNotRegistered:
      return {Outcome::Kind::kNotRegistered, std::string(view.value), {}};
  }
  return {Outcome::Kind::kWorkerLost, "an outcome of unknown kind", {}};
}

// A task queued behind one running this long on a busy worker is taken back
// for an idle worker; well above a round trip, so the stealing costs little
// next to what it saves.
constexpr std::chrono::milliseconds kStealAfter{100};

// How long a worker whose connection closed waits for its backend to say
// how it ended; a local worker's exit shows within a tick.
constexpr std::chrono::milliseconds kExitReportWait{2000};

// Statuses of a process the loader or runtime could not start (a missing
// library or executable, docker run's 126 and 127): every replacement would
// end the same way.
bool CannotStart(const backend::Exit& exit) {
  return exit.status == ExitStatus::Exited(126) || exit.status == ExitStatus::Exited(127);
}

// A cause only the engine knows, which neither the program's own end nor
// the master's kill of a lost worker (its pod deleted, its job cancelled)
// gives.
bool EngineEnded(const backend::EndCause& cause) {
  using namespace backend::end_word;
  for (const char* engine : {kOom, kEvicted, kPreempted, kTimeLimit, kNodeFailed})
    if (std::string_view(cause.word) == engine) return true;
  return false;
}

// Why a worker was lost, with the task it ran: "killed by SIGSEGV while
// running square (item 3)".
std::string LossWhy(const backend::EndCause& cause, const std::string& task) {
  return cause.text + (task.empty() ? "" : " while running " + task);
}

// "; 2 retries left" after what a lost worker ran: whether it runs again
// (using one of them).
std::string RetriesSaid(int left) {
  if (left <= 0) return "; no retries left, so it fails";
  return "; " + std::to_string(left) + (left == 1 ? " retry" : " retries") + " left";
}

// The last line a worker wrote to its log file, if it has one: why it could
// not start, as the loader said it.
std::string LastWords(const std::string& log_file) {
  std::ifstream in(log_file, std::ios::binary | std::ios::ate);
  if (!in) return "";
  const std::streamoff size = in.tellg();
  const std::streamoff keep = std::min<std::streamoff>(size, 4096);
  std::string tail(static_cast<std::size_t>(keep), '\0');
  in.seekg(size - keep);
  in.read(tail.data(), keep);
  return LastLine(std::move(tail));
}

// How many of map's items a call of the chunk form holds: its encoding
// starts with the length of its std::vector of argument tuples, a cereal
// size tag (detail::encode_chunks).
std::size_t ItemsOfChunk(const std::string& chunk) {
  std::uint64_t n = 0;
  if (chunk.size() < sizeof n) return 1;
  std::memcpy(&n, chunk.data(), sizeof n);
  return static_cast<std::size_t>(n);
}

}  // namespace

PoolService::PoolService(Options options, std::unique_ptr<backend::Backend> backend,
                         Outbox& outbox)
    : options_(std::move(options)),
      deadlines_{options_.settings.start_timeout, /*probe_interval=*/options_.settings.heartbeat_timeout,
                 options_.settings.heartbeat_timeout},
      backend_(std::move(backend)),
      outbox_(outbox),
      tasks_(options_.max_task_retries),
      sizer_(options_.elastic ? Sizer(*options_.elastic) : Sizer(options_.processes)) {}

PoolService::~PoolService() {
  for (const std::string& id : workers_.Held()) SayLoss(*workers_.Settle(id, nullptr));
  backend_->KillAll();
}

void PoolService::Start(Clock::time_point now) {
  stats_ = PoolStats(now);
  StartWorkers(now);
}

PoolService::Status PoolService::status() const {
  Status s;
  s.workers_wanted = finished_ ? 0 : sizer_.target();
  for (const auto& [id, w] : workers_.all()) s.workers_ready += w.state == WorkerState::kReady;
  s.tasks_queued = tasks_.pending();
  s.tasks_running = tasks_.size() - tasks_.pending();
  s.tasks_done = tasks_.done();
  s.tasks_failed = tasks_.failed();
  return s;
}

PoolCounters PoolService::Counters() const {
  PoolCounters c = stats_.counters();
  c.tasks_done = tasks_.done();
  c.tasks_failed = tasks_.failed();
  c.workers_lost = 0;
  for (const auto& [word, n] : workers_.lost_by_cause()) c.workers_lost += n;
  return c;
}

PoolService::Snapshot PoolService::TakeSnapshot(Clock::time_point now) const {
  Snapshot s;
  s.counters = Counters();
  s.status = status();
  s.elapsed_seconds = std::chrono::duration<double>(now - stats_.started()).count();
  s.rate_now = stats_.RateNow(now);
  const std::uint64_t finished = s.counters.tasks_done + s.counters.tasks_failed;
  if (s.elapsed_seconds > 0) s.rate_average = static_cast<double>(finished) / s.elapsed_seconds;
  const double rate = s.rate_now > 0 ? s.rate_now : s.rate_average;
  const std::uint64_t left = tasks_.size();
  if (left == 0) {
    s.eta_seconds = 0.0;
  } else if (rate > 0) {
    s.eta_seconds = static_cast<double>(left) / rate;
  }
  std::vector<std::string> queued = backend_->Queued();
  std::sort(queued.begin(), queued.end());  // searched once per worker
  s.workers.reserve(workers_.all().size() + kEndedWorkersKept);
  for (const auto& [id, w] : workers_.all()) {
    WorkerSnapshot ws{id, w.pid, to_string(w.state), {}, 0, w.tasks_done, {}};
    if (const std::uint64_t task = tasks_.Oldest(id)) {
      ws.task = tasks_.Describe(task);
      ws.task_seconds = std::chrono::duration<double>(now - w.busy_since).count();
      if (w.state == WorkerState::kReady) ws.state = kWorkerBusy;
    }
    if (!w.connected && w.state == WorkerState::kStarting &&
        std::binary_search(queued.begin(), queued.end(), id))
      ws.state = kWorkerPending;
    s.workers.push_back(std::move(ws));
  }
  s.lost_by_cause = workers_.lost_by_cause();
  // The last lost ones, oldest first.
  std::vector<const WorkerEnd*> lost;
  for (auto it = workers_.ended().rbegin(); it != workers_.ended().rend() && lost.size() < kEndedWorkersKept; ++it)
    if (it->lost) lost.push_back(&*it);
  for (auto it = lost.rbegin(); it != lost.rend(); ++it) {
    const WorkerEnd& e = **it;
    s.workers.push_back({e.id, e.pid, kWorkerLost, "", 0, e.tasks_done,
                         e.cause.text + (e.task.empty() ? "" : " while running " + e.task)});
  }
  return s;
}

void PoolService::Submit(std::string function, std::vector<std::string> calls,
                         std::size_t chunksize, std::shared_ptr<detail::Batch> batch,
                         Clock::time_point now, wire::TaskForm form) {
  if (broken_ || terminating_) {
    const Outcome why = broken_ ? *broken_ : Outcome{Outcome::Kind::kPoolClosed, "pool terminated", {}};
    batch->complete(0, std::vector<Outcome>(calls.size(), why));
    return;
  }
  std::size_t item = 0;  // of the caller's items, for reports of what a worker ran
  for (std::size_t first = 0; first < calls.size(); first += chunksize) {
    Task task;
    task.function = function;
    task.form = form;
    task.batch = batch;
    task.first = first;
    const std::size_t end = std::min(calls.size(), first + chunksize);
    task.first_item = item;
    for (std::size_t i = first; i < end; ++i)
      task.items += form == wire::TaskForm::kChunk ? ItemsOfChunk(calls[i]) : 1;
    item += task.items;
    stats_.Submitted(1, task.items);
    task.calls.assign(std::make_move_iterator(calls.begin() + static_cast<std::ptrdiff_t>(first)),
                      std::make_move_iterator(calls.begin() + static_cast<std::ptrdiff_t>(end)));
    tasks_.Add(std::move(task));
  }
  Deal(now);
}

void PoolService::Resize(int processes, Clock::time_point now) {
  if (closing_ || terminating_) return;
  sizer_.Resize(processes);
  StartWorkers(now);
  Retire(now);
}

void PoolService::Close(Clock::time_point now) {
  closing_ = true;
  CheckFinished(now);
}

void PoolService::Terminate(Clock::time_point now) {
  if (terminating_) return;
  terminating_ = closing_ = true;
  tasks_.FailAll({Outcome::Kind::kPoolClosed, "pool terminated", {}});
  for (const auto& [id, w] : workers_.all()) {
    if (w.connected && !w.stop_sent) (void)SendControl(id, Type::kStop, now);
    backend_->Kill(id);
  }
  CheckFinished(now);
}

void PoolService::Fail(const std::string& why, Clock::time_point now) {
  Break({Outcome::Kind::kWorkerLost, why, {}});
  CheckFinished(now);
}

bool PoolService::OnHello(const std::string& id, const wire::Hello& hello, Clock::time_point now) {
  if (!workers_.Connect(id, static_cast<long>(hello.pid))) return false;
  if (!outbox_.Send(id, wire::Encode(wire::Welcome{options_.channel,
                                                   static_cast<std::uint32_t>(options_.settings.prefetch),
                                                   options_.initializer.function,
                                                   options_.initializer.args,
                                                   options_.task_timeout.has_value()}))) {
    LoseWorker(id, backend::Because(backend::end_word::kConnectionLost, "it left before its WELCOME"), now);
    return true;
  }
  workers_.Find(id)->last_sent = now;
  if (options_.on_connected) options_.on_connected(id, static_cast<long>(hello.pid));
  log::Info("worker " + id + " (pid " + std::to_string(hello.pid) + ") connected");
  StartWorkers(now);
  return true;
}

PoolService::Handler PoolService::HandlerFor(Type type) {
  switch (type) {
    case Type::kReady: return &PoolService::OnReady;
    case Type::kResult: return &PoolService::OnResult;
    case Type::kHeartbeat: return &PoolService::OnHeartbeat;
    case Type::kInitFailed: return &PoolService::OnInitFailed;
    default: return nullptr;  // what only a master sends, or HELLO again
  }
}

bool PoolService::OnMessage(const std::string& id, Type type, const zmq::message_t& message,
                            Clock::time_point now) {
  Worker* worker = workers_.Find(id);
  if (!worker || !worker->connected) return false;
  const Handler handler = HandlerFor(type);
  if (!handler) {
    LoseWorker(id, std::string("it sent ") + wire::TypeName(type) + ", which a worker never sends",
               now);
    return true;
  }
  (this->*handler)(id, *worker, message, now);
  return true;
}

void PoolService::OnReady(const std::string& id, Worker& worker, const zmq::message_t& message,
                          Clock::time_point now) {
  wire::Ready ready;
  std::string err;
  if (!wire::Decode(message, &ready, &err)) return LoseWorker(id, "it sent " + err, now);
  workers_.SetCredit(worker, static_cast<int>(ready.credit));
  worker.idle_since = now;
  sizer_.Started();
  Retire(now);
}

void PoolService::OnResult(const std::string& id, Worker& worker, const zmq::message_t& message,
                           Clock::time_point now) {
  // Each result is checked before its outcomes are read, so a faulty
  // worker's message costs the master no more than the tasks it holds: it
  // is dropped with the worker, and its tasks run again elsewhere. A task
  // taken back from it (Steal) is answered with no outcome when it was
  // skipped, or with outcomes that are dropped when it had started.
  std::set<std::uint64_t> seen;
  const std::size_t answerable = tasks_.Leases(id) + worker.revoked.size();
  std::size_t answered = 0;
  const auto check = [&](std::uint64_t task, std::uint32_t outcomes, std::string* why) {
    if (++answered > answerable) {
      *why = "results for more tasks than the " + std::to_string(answerable) + " it was given";
      return wire::ResultUse::kRefuse;
    }
    const bool held = tasks_.HeldBy(task, id);
    if (worker.revoked.count(task) != 0 && (outcomes == 0 || !held)) return wire::ResultUse::kSkip;
    if (!held || !seen.insert(task).second) {
      *why = "a result for task " + std::to_string(task) + ", which it does not hold";
      return wire::ResultUse::kRefuse;
    }
    const std::size_t calls = tasks_.Find(task)->calls.size();
    if (outcomes != calls) {
      *why = "a result for task " + std::to_string(task) + " with " + std::to_string(outcomes) +
             " outcomes for " + std::to_string(calls) + " calls";
      return wire::ResultUse::kRefuse;
    }
    return wire::ResultUse::kKeep;
  };
  std::uint32_t credit = 0;
  std::vector<wire::ResultView> results;
  std::string err;
  if (!wire::ReadResults(message, &credit, &results, &err, check))
    return LoseWorker(id, "it sent " + err, now);
  workers_.SetCredit(worker, static_cast<int>(credit));
  // A task runs from when it was dealt, or from the result before it,
  // whichever came later: as far as the master can tell.
  Clock::time_point since = worker.busy_since;
  for (const auto& result : results) {
    if (result.outcomes.empty() || !tasks_.HeldBy(result.id, id)) {
      if (auto it = worker.revoked.find(result.id); it != worker.revoked.end())
        worker.revoked.erase(it);
      continue;
    }
    std::vector<Outcome> outcomes;
    outcomes.reserve(result.outcomes.size());
    for (const auto& view : result.outcomes) outcomes.push_back(ToOutcome(view));
    ChargeResult(id, result.id, outcomes);
    const Clock::time_point began = std::max(tasks_.LeasedAt(result.id), since);
    since = now;
    const std::size_t items = tasks_.Find(result.id)->items;
    const bool done = tasks_.Finish(result.id, std::move(outcomes));
    stats_.Finished(now, now - began, items, done);
    ++worker.tasks_done;
  }
  if (tasks_.Leases(id) == 0) {
    worker.idle_since = now;
    RetireIfSpent(id, worker, now);
  } else {
    worker.busy_since = now;  // the next task it holds has begun
  }
  if (worker.state == WorkerState::kRetiring && tasks_.Leases(id) == 0 && !worker.stop_sent)
    (void)SendControl(id, Type::kStop, now);
  CheckFinished(now);
}

void PoolService::ChargeResult(const std::string& id, std::uint64_t task, const std::vector<Outcome>& outcomes) {
  if (!options_.budget) return;
  PeerBudget::Usage cost;
  for (const Outcome& o : outcomes) cost.bytes += o.data.size() + o.error_type.size() + wire::kHeldOverheadBytes;
  const std::shared_ptr<detail::Batch>& batch = tasks_.Find(task)->batch;
  HeldResults& held = held_results_[{batch.get(), id}];
  if (held.batch.expired()) held = {batch, {}};  // new, or a dropped batch's address reused
  options_.budget->Charge(id, cost, &held.hold);
}

bool PoolService::ReleaseTaken() {
  const std::size_t before = held_results_.size();
  std::erase_if(held_results_, [](const auto& entry) { return entry.second.batch.expired(); });
  return held_results_.size() != before;
}

bool PoolService::OverBudget(const std::string& id) const {
  return options_.budget && options_.budget->BytesLeft(id) == 0;
}

bool PoolService::AnyWithinBudget() const {
  for (const auto& [id, w] : workers_.all())
    if (w.state == WorkerState::kReady && w.connected && !w.closed_at && !OverBudget(id)) return true;
  return false;
}

void PoolService::OnInitFailed(const std::string& id, Worker&, const zmq::message_t& message,
                               Clock::time_point now) {
  wire::InitFailed failed;
  std::string err;
  if (!wire::Decode(message, &failed, &err)) return LoseWorker(id, "it sent " + err, now);
  Break({Outcome::Kind::kRemoteError,
         "the pool initializer failed in worker " + id + ": " + std::string(failed.error.message),
         std::string(failed.error.type)});
  CheckFinished(now);
}

void PoolService::Deal(Clock::time_point now) {
  if (!tasks_.HasPending()) return;
  const auto free = workers_.WithFreeCredit(tasks_);
  // Deal pending tasks one per worker per pass, so a round of tasks spreads
  // over idle workers before any queues behind a busy one; each worker then
  // gets its share in one message of at most about kMaxTaskMessageBytes (big
  // arguments wait for results to come back rather than pile up at once).
  std::vector<std::optional<wire::Writer>> messages(free.size());
  // Those over their budget wait for the program to take their results.
  std::vector<bool> held_back(free.size(), false);
  bool any_held_back = false;
  for (std::size_t i = 0; i < free.size() && options_.budget; ++i)
    if (OverBudget(*free[i].first)) held_back[i] = any_held_back = true;
  if (any_held_back && !AnyWithinBudget()) held_back.assign(free.size(), false);
  bool dealt = true;
  while (tasks_.HasPending() && dealt) {
    dealt = false;
    for (std::size_t i = 0; i < free.size() && tasks_.HasPending(); ++i) {
      const auto& [id, w] = free[i];
      if (held_back[i] || !HasRoom(*id, *w)) continue;
      if (messages[i] && messages[i]->size() >= wire::kMaxTaskMessageBytes) continue;
      if (tasks_.Leases(*id) == 0) w->busy_since = now;
      ++w->dealt;
      const std::uint64_t task_id = tasks_.LeaseNext(*id, now);
      const Task& task = *tasks_.Find(task_id);
      if (!messages[i]) messages[i].emplace(Type::kTask, options_.channel);
      wire::AppendTask(*messages[i], task_id, task.function, task.form, task.calls);
      dealt = true;
    }
  }
  std::vector<std::string> unreachable;
  for (std::size_t i = 0; i < free.size(); ++i) {
    if (!messages[i]) continue;
    if (outbox_.Send(*free[i].first, messages[i]->Finish())) {
      free[i].second->last_sent = now;
    } else {
      unreachable.push_back(*free[i].first);
    }
  }
  // Their tasks go back to the queue once they are lost.
  for (const auto& id : unreachable) OnConnectionClosed(id, now);
  Grow(now);  // for what is still waiting
}

bool PoolService::HasRoom(const std::string& id, const Worker& w) const {
  if (tasks_.Leases(id) >= static_cast<std::size_t>(w.credit)) return false;
  return !options_.max_tasks_per_child || w.dealt < *options_.max_tasks_per_child;
}

void PoolService::RetireIfSpent(const std::string& id, Worker& w, Clock::time_point now) {
  if (!options_.max_tasks_per_child || w.dealt < *options_.max_tasks_per_child ||
      w.state == WorkerState::kRetiring)
    return;
  log::Info("worker " + id + " ran its " + std::to_string(w.dealt) +
            " tasks (max_tasks_per_child); a new worker replaces it");
  workers_.Retire(w);
  (void)SendControl(id, Type::kStop, now);
  StartWorkers(now);
}

void PoolService::TimeOut(Clock::time_point now) {
  if (!options_.task_timeout || terminating_ || broken_) return;
  std::vector<std::string> late;
  for (const auto& [id, w] : workers_.all())
    if (w.connected && tasks_.Leases(id) > 0 && now - w.busy_since > *options_.task_timeout)
      late.push_back(id);
  for (const std::string& id : late) {
    const std::uint64_t task = tasks_.Oldest(id);
    const std::string what = "task " + tasks_.Describe(task) + " ran longer than its pool's " +
                             "task_timeout of " + log::Seconds(*options_.task_timeout);
    tasks_.Finish(task, std::vector<Outcome>(
                            tasks_.Find(task)->calls.size(),
                            Outcome{Outcome::Kind::kTimeout,
                                    what + " on worker " + id + ", which was killed", {}}));
    tasks_.GiveBack(id);  // those queued behind it did not run: no loss
    LoseWorker(id, backend::Because(backend::end_word::kTaskTimeout, "killed, its " + what), now);
  }
}

void PoolService::Steal(Clock::time_point now) {
  if (tasks_.HasPending() || terminating_ || broken_) return;
  std::size_t thieves = 0;
  const bool pressing = options_.budget && AnyWithinBudget();  // as Deal would
  // Busy workers holding two or more, by how many they hold.
  std::vector<std::pair<std::size_t, const std::string*>> victims;
  for (const auto& [id, w] : workers_.all()) {
    const std::size_t held = tasks_.Leases(id);
    if (held == 0 && w.state == WorkerState::kReady && !w.closed_at && HasRoom(id, w) &&
        !(pressing && OverBudget(id)))
      ++thieves;
    if (held > 1 && w.connected && !w.closed_at && now - w.busy_since >= kStealAfter)
      victims.emplace_back(held, &id);
  }
  const auto fewer = [](const auto& a, const auto& b) { return a.first < b.first; };
  std::make_heap(victims.begin(), victims.end(), fewer);
  std::map<std::string, wire::Revoke> revokes;
  // One task for each worker holding none, from the busy one holding most.
  for (; thieves > 0 && !victims.empty(); --thieves) {
    std::pop_heap(victims.begin(), victims.end(), fewer);
    auto& [held, victim] = victims.back();
    const std::uint64_t task = tasks_.TakeBack(*victim);
    Worker& w = *workers_.Find(*victim);
    --w.dealt;
    w.revoked.insert(task);
    revokes[*victim].ids.push_back(task);
    if (--held > 1) {
      std::push_heap(victims.begin(), victims.end(), fewer);
    } else {
      victims.pop_back();
    }
  }
  for (auto& [victim, revoke] : revokes) {
    if (outbox_.Send(victim, wire::Encode(revoke, options_.channel))) {
      workers_.Find(victim)->last_sent = now;
    } else {
      OnConnectionClosed(victim, now);
    }
  }
  if (!revokes.empty()) Deal(now);  // idle workers, holding fewest, are dealt first
}

bool PoolService::SendControl(const std::string& id, Type type, Clock::time_point now) {
  const bool sent = outbox_.Send(id, wire::EncodeControl(type, options_.channel));
  if (Worker* w = workers_.Find(id)) {
    w->last_sent = now;
    if (type == Type::kStop) workers_.MarkStopSent(*w, now);
  }
  return sent;
}

void PoolService::StartWorkers(Clock::time_point now) {
  // A closed pool still replaces workers while its queued tasks need them.
  if (terminating_ || broken_ || (closing_ && tasks_.size() == 0)) return;
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
  if (launches.empty()) return;
  // All at once: a backend may start them with one request (a job array).
  std::string err;
  if (!backend_->StartMany(launches, &err)) {
    for (const backend::Launch& launch : launches) backend_->Kill(launch.bootstrap.worker_id);  // any that started
    Break({Outcome::Kind::kWorkerLost,
           "the " + std::string(backend_->name()) + " backend cannot start workers: " + err,
           {}});
    return;
  }
  for (const backend::Launch& launch : launches) workers_.Add(launch.bootstrap.worker_id, now);
  stats_.WorkersStarted(launches.size());
}

void PoolService::Grow(Clock::time_point now) {
  if (closing_ || broken_ || !tasks_.HasPending()) return;
  if (sizer_.Grow(tasks_.pending(), workers_.Live(), workers_.Starting())) StartWorkers(now);
}

void PoolService::RetireIdle(Clock::time_point now) {
  const auto cutoff = sizer_.IdleCutoff(now);
  if (!cutoff || closing_ || broken_ || tasks_.HasPending()) return;
  const std::vector<std::string> idle = workers_.IdleSince(*cutoff, tasks_);
  const int retire = sizer_.RetireIdle(workers_.Live(), static_cast<int>(idle.size()));
  for (int i = 0; i < retire; ++i) {
    workers_.Retire(*workers_.Find(idle[static_cast<std::size_t>(i)]));
    (void)SendControl(idle[static_cast<std::size_t>(i)], Type::kStop, now);
  }
}

bool PoolService::Probe(const std::string& id, Clock::time_point now) {
  if (!HasConnected(id)) return false;
  if (SendControl(id, Type::kHeartbeat, now)) return true;
  OnConnectionClosed(id, now);
  return false;
}

void PoolService::OnConnectionClosed(const std::string& id, Clock::time_point now) {
  Worker* w = workers_.Find(id);
  if (!w) return;
  // One asked to stop with nothing left to do is simply gone.
  if (terminating_ || (w->state == WorkerState::kRetiring && tasks_.Leases(id) == 0))
    return LoseWorker(id, backend::Because(backend::end_word::kConnectionLost, "its connection closed"), now);
  if (w->closed_at) return;
  w->closed_at = now;
  w->credit = 0;  // nothing more is dealt to it
  backend_->ConnectionClosed(id);
}

void PoolService::Retire(Clock::time_point now) {
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

void PoolService::SayLoss(const WorkerEnd& loss) {
  log::Warning("worker " + loss.id + " lost: " + LossWhy(loss.cause, loss.task) +
               (loss.task.empty() ? "" : RetriesSaid(loss.retries_left)));
}

void PoolService::LoseWorker(const std::string& id, const std::string& why, Clock::time_point now) {
  LoseWorker(id, backend::Because(backend::end_word::kProtocol, why), now);
}

void PoolService::LoseWorker(const std::string& id, const backend::EndCause& cause, Clock::time_point now) {
  const Worker* found = workers_.Find(id);
  if (!found) return;
  const Worker worker = *found;
  const bool retiring = worker.state == WorkerState::kRetiring;
  // A worker asked to stop with nothing left to do that goes is no loss,
  // however its going shows first (its connection closing, its exit).
  const bool done = terminating_ || (retiring && tasks_.Leases(id) == 0);
  const std::string running = tasks_.Running(id);
  const int retries_left = tasks_.RetriesLeft(id);
  // Lost with its connection, as a Slurm job past its time limit or an
  // evicted pod often is before its engine tells: its tasks move on now,
  // its loss is said and counted once the engine tells why (Tick), or
  // its wait for that ends.
  const bool held = !done && std::string_view(cause.word) == backend::end_word::kConnectionLost;
  const WorkerEnd ended{id, cause, running, retries_left, !done, now, worker.pid, worker.tasks_done};
  if (!done && !held) SayLoss(ended);
  workers_.End(ended, held);
  backend_->Kill(id);
  const std::string why = LossWhy(cause, running);
  if (!worker.connected && !terminating_ && !retiring) sizer_.StartFailed();
  stats_.Retried(tasks_.Lose(id, why));
  // The pool finishes once the backend has seen it end (and on_exit has
  // its status): a closed connection can show before the process is gone.
  awaiting_exit_[id] = now;
  if (!options_.replace_lost_workers) {
    if (!done) Break({Outcome::Kind::kWorkerLost, "process " + id + " was lost (" + why + ")", {}});
  } else if (sizer_.GivesUp()) {
    Break({Outcome::Kind::kWorkerLost,
           std::to_string(sizer_.start_failures()) +
               " workers in a row ended before connecting to the master; the last: " + why,
           {}});
  } else {
    // Tick starts the replacements of all it loses at once: a job of
    // several workers lost is replaced by one (workers_per_job).
    if (!in_tick_) StartWorkers(now);
    Deal(now);
  }
  CheckFinished(now);
}

void PoolService::Break(Outcome outcome) {
  if (broken_) return;
  log::Error(outcome.data);
  broken_ = outcome;
  tasks_.FailAll(outcome);
  for (const auto& [id, w] : workers_.all()) backend_->Kill(id);
  for (const auto& [id, w] : workers_.all()) workers_.Retire(*workers_.Find(id));
}

void PoolService::Tick(Clock::time_point now) {
  in_tick_ = true;
  for (const backend::Exit& exit : backend_->Poll()) {
    if (options_.on_exit) options_.on_exit(exit);
    const Worker* w = workers_.Find(exit.worker_id);
    if (w && w->stop_sent && tasks_.Leases(exit.worker_id) == 0) {
      workers_.End({exit.worker_id, exit.cause, "", 0, false, now});  // retired as asked
    } else if (w && exit.not_started && !terminating_) {
      // Said as a refused start is: the backend, not the worker, failed.
      Break({Outcome::Kind::kWorkerLost,
             "the " + std::string(backend_->name()) + " backend cannot start workers: " + exit.cause.text,
             {}});
      LoseWorker(exit.worker_id, exit.cause, now);
    } else if (w && !w->connected && CannotStart(exit) && !terminating_) {
      // At the first: each replacement would fail the same way.
      const std::string said =
          options_.settings.run_dir.empty()
              ? ""
              : LastWords(runs::WorkerLogPath(options_.settings.run_dir, exit.worker_id));
      // A backend that reads the worker's output (a container's) has said
      // it already.
      const bool new_words = !said.empty() && exit.cause.text.find(said) == std::string::npos;
      Break({Outcome::Kind::kWorkerLost,
             "worker " + exit.worker_id + " could not start: " + exit.cause.text +
                 (new_words ? " (" + said + ")" : ""),
             {}});
      LoseWorker(exit.worker_id, backend::Because(backend::end_word::kCannotStart, exit.cause.text), now);
    } else if (w) {
      LoseWorker(exit.worker_id, exit.cause, now);
    } else if (const auto loss = workers_.Settle(exit.worker_id, EngineEnded(exit.cause) ? &exit.cause : nullptr)) {
      SayLoss(*loss);  // lost with its connection; now the engine said why
    }
    awaiting_exit_.erase(exit.worker_id);
  }
  for (const std::string& id : backend_->Queued())
    if (Worker* w = workers_.Find(id); w && !w->connected) w->started = now;
  // A backend that never reports the exit holds up nobody for long.
  for (auto it = awaiting_exit_.begin(); it != awaiting_exit_.end();) {
    if (now - it->second <= deadlines_.heartbeat_timeout) {
      ++it;
      continue;
    }
    if (const auto loss = workers_.Settle(it->first, nullptr)) SayLoss(*loss);
    it = awaiting_exit_.erase(it);
  }
  // Connections closed a while ago whose end no backend reported.
  const auto wait = std::min<std::chrono::milliseconds>(kExitReportWait, deadlines_.heartbeat_timeout);
  std::vector<std::string> closed;
  for (const auto& [id, w] : workers_.all())
    if (w.closed_at && now - *w.closed_at >= wait) closed.push_back(id);
  for (const auto& id : closed)
    LoseWorker(id,
               backend::Because(backend::end_word::kConnectionLost,
                                "its connection was lost and no end of its process was reported (a frozen "
                                "process, or a network failure)"),
               now);
  const DueWork due = workers_.Due(now, deadlines_);
  for (const auto& [id, why] : due.lost) LoseWorker(id, why, now);
  for (const auto& id : due.kill) backend_->Kill(id);  // asked to stop, still running
  for (const auto& id : due.heartbeat)
    if (workers_.Find(id) && !SendControl(id, Type::kHeartbeat, now))
      OnConnectionClosed(id, now);
  if (ReleaseTaken()) Deal(now);
  TimeOut(now);
  Steal(now);
  RetireIdle(now);
  in_tick_ = false;
  StartWorkers(now);  // those waiting for room to start, and the lost ones' replacements
  CheckFinished(now);
}

void PoolService::CheckFinished(Clock::time_point now) {
  if (!closing_ && !broken_) return;
  if (tasks_.size() == 0) {
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
  if (finished_ || !workers_.empty() || tasks_.size() != 0 || !awaiting_exit_.empty()) return;
  finished_ = true;
  if (options_.on_finished) options_.on_finished();
}

}  // namespace fiber::master
