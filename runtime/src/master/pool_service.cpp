#include "master/pool_service.hpp"

#include "diagnostics/log.hpp"
#include "wire/codec.hpp"

namespace fiber::master {

using detail::Outcome;
using wire::Type;

PoolService::PoolService(Options options, std::unique_ptr<backend::Backend> backend,
                         Outbox& outbox)
    : options_(std::move(options)),
      dealing_(options_, phase_, outbox, stats_),
      crew_(options_, phase_, dealing_.tasks(), std::move(backend), outbox, stats_) {}

PoolService::~PoolService() = default;

void PoolService::Start(Clock::time_point now) {
  stats_ = PoolStats(now);
  StartWorkers(now);
}

PoolService::Status PoolService::status() const {
  const TaskTable& tasks = dealing_.tasks();
  Status s;
  s.workers_wanted = finished_ ? 0 : crew_.sizer().target();
  for (const auto& [id, w] : crew_.workers().all()) s.workers_ready += w.state == WorkerState::kReady;
  s.tasks_queued = tasks.pending();
  s.tasks_running = tasks.size() - tasks.pending();
  s.tasks_done = tasks.done();
  s.tasks_failed = tasks.failed();
  return s;
}

PoolCounters PoolService::Counters() const {
  PoolCounters c = stats_.counters();
  c.tasks_done = dealing_.tasks().done();
  c.tasks_failed = dealing_.tasks().failed();
  c.workers_lost = 0;
  for (const auto& [word, n] : crew_.workers().lost_by_cause()) c.workers_lost += n;
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
  const std::uint64_t left = dealing_.tasks().size();
  if (left == 0) {
    s.eta_seconds = 0.0;
  } else if (rate > 0) {
    s.eta_seconds = static_cast<double>(left) / rate;
  }
  s.workers = crew_.Snapshot(now);
  s.lost_by_cause = crew_.workers().lost_by_cause();
  return s;
}

void PoolService::Submit(std::string function, std::vector<std::string> calls,
                         std::size_t chunksize, std::shared_ptr<detail::Batch> batch,
                         Clock::time_point now, wire::TaskForm form) {
  if (!phase_.running()) {
    const Outcome why = phase_.broken ? *phase_.broken : Outcome{Outcome::Kind::kPoolClosed, "pool terminated", {}};
    batch->complete(0, std::vector<Outcome>(calls.size(), why));
    return;
  }
  dealing_.Submit(std::move(function), std::move(calls), chunksize, std::move(batch), form);
  Deal(now);
}

void PoolService::Resize(int processes, Clock::time_point now) {
  if (phase_.closing || phase_.terminating) return;
  crew_.Resize(processes, now);
  StartWorkers(now);
}

void PoolService::Close(Clock::time_point now) {
  phase_.closing = true;
  CheckFinished(now);
}

void PoolService::Terminate(Clock::time_point now) {
  if (phase_.terminating) return;
  phase_.terminating = phase_.closing = true;
  dealing_.FailAll({Outcome::Kind::kPoolClosed, "pool terminated", {}});
  crew_.StopAndKillAll(now);
  CheckFinished(now);
}

void PoolService::Fail(const std::string& why, Clock::time_point now) {
  Break({Outcome::Kind::kWorkerLost, why, {}});
  CheckFinished(now);
}

bool PoolService::OnHello(const std::string& id, const wire::Hello& hello, Clock::time_point now) {
  switch (crew_.Connect(id, static_cast<long>(hello.pid), now)) {
    case Crew::Hello::kRefused: return false;
    case Crew::Hello::kUnreachable:
      LoseWorker(id, backend::Because(backend::end_word::kConnectionLost, "it left before its WELCOME"), now);
      return true;
    case Crew::Hello::kWelcomed: break;
  }
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
  Worker* worker = crew_.workers().Find(id);
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
  crew_.OnReady(worker, static_cast<int>(ready.credit), now);
}

void PoolService::OnResult(const std::string& id, Worker&, const zmq::message_t& message,
                           Clock::time_point now) {
  const Dealing::Answer answer = dealing_.OnResult(crew_.workers(), id, message, now);
  if (answer.fault) return LoseWorker(id, *answer.fault, now);
  if (answer.idle && crew_.OnIdle(id, now)) StartWorkers(now);  // a spent one's replacement
  CheckFinished(now);
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
  // Each loss is handled once the deal is over, never within it.
  for (const std::string& id : dealing_.Deal(crew_.workers(), now)) ConnectionClosed(id, now);
  if (crew_.Grow()) StartWorkers(now);  // for what is still waiting
}

void PoolService::StartWorkers(Clock::time_point now) {
  if (auto why = crew_.StartWorkers(now)) Break({Outcome::Kind::kWorkerLost, std::move(*why), {}});
}

bool PoolService::Probe(const std::string& id, Clock::time_point now) {
  if (!HasConnected(id)) return false;
  if (crew_.Probe(id, now)) return true;
  ConnectionClosed(id, now);
  return false;
}

void PoolService::ConnectionClosed(const std::string& id, Clock::time_point now) {
  if (crew_.ConnectionClosed(id, now))
    LoseWorker(id, backend::Because(backend::end_word::kConnectionLost, "its connection closed"), now);
}

void PoolService::LoseWorker(const std::string& id, const std::string& why, Clock::time_point now) {
  LoseWorker(id, backend::Because(backend::end_word::kProtocol, why), now);
}

void PoolService::LoseWorker(const std::string& id, const backend::EndCause& cause, Clock::time_point now) {
  const std::optional<Crew::Loss> loss = crew_.End(id, cause, now);
  if (!loss) return;
  dealing_.Lose(id, loss->why);
  if (!options_.replace_lost_workers) {
    if (loss->lost) Break({Outcome::Kind::kWorkerLost, "process " + id + " was lost (" + loss->why + ")", {}});
  } else if (crew_.sizer().GivesUp()) {
    Break({Outcome::Kind::kWorkerLost,
           std::to_string(crew_.sizer().start_failures()) +
               " workers in a row ended before connecting to the master; the last: " + loss->why,
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
  if (phase_.broken) return;
  log::Error(outcome.data);
  phase_.broken = outcome;
  dealing_.FailAll(outcome);
  crew_.KillAll();
}

void PoolService::Tick(Clock::time_point now) {
  in_tick_ = true;
  for (const ExitLoss& exit : crew_.Poll(now)) {
    if (exit.cannot_start) Break({Outcome::Kind::kWorkerLost, *exit.cannot_start, {}});
    LoseWorker(exit.id, exit.cause, now);
    crew_.Exited(exit.id);
  }
  for (const auto& [id, cause] : crew_.Overdue(now)) LoseWorker(id, cause, now);
  if (dealing_.ReleaseTaken()) Deal(now);
  for (const auto& [id, cause] : dealing_.TimeOut(crew_.workers(), now)) LoseWorker(id, cause, now);
  for (const std::string& id : dealing_.Steal(crew_.workers(), now)) ConnectionClosed(id, now);
  crew_.RetireIdle(now);
  in_tick_ = false;
  StartWorkers(now);  // those waiting for room to start, and the lost ones' replacements
  CheckFinished(now);
}

void PoolService::CheckFinished(Clock::time_point now) {
  if (!phase_.closing && !phase_.broken) return;
  if (dealing_.tasks().size() == 0) crew_.StopAll(now);
  if (finished_ || !crew_.gone() || dealing_.tasks().size() != 0) return;
  finished_ = true;
  if (options_.on_finished) options_.on_finished();
}

}  // namespace fiber::master
