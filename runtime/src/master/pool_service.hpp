// One Pool as the run's master serves it: the thin owner that wires its two
// roles, dealing (its task table: leases, results, stealing, timeouts) and
// its crew (its workers, sizer and backend), and applies what each hands
// back: a worker to lose, a pool that can run nothing more. Driven by the
// dispatcher's I/O thread only, so not thread-safe; the time comes in as an
// argument and messages go out through an Outbox, so tests drive it with no
// socket, process or sleep.
#pragma once

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "master/crew.hpp"
#include "master/dealing.hpp"
#include "master/pool_phase.hpp"
#include "master/pool_service_options.hpp"
#include "wire/message.hpp"

namespace fiber::master {

class PoolService {
 public:
  using Options = PoolServiceOptions;
  PoolService(Options options, std::unique_ptr<backend::Backend> backend, Outbox& outbox);
  /// Kills every worker still there.
  ~PoolService();

  wire::Channel channel() const { return options_.channel; }
  bool finished() const { return finished_; }
  std::vector<WorkerInfo> Workers() const { return crew_.workers().Describe(dealing_.tasks()); }
  /// Its numbers, as `fiber ps` shows them.
  struct Status {
    int workers_wanted = 0, workers_ready = 0;
    std::size_t tasks_running = 0, tasks_queued = 0;  // chunks of calls, as dealt
    std::size_t tasks_done = 0, tasks_failed = 0;     // finished so far
  };
  Status status() const;
  /// Its workers, and how the last ones to go ended (WorkerSet::ended,
  /// lost_by_cause): for fiber top and the metrics.
  const WorkerSet& workers() const { return crew_.workers(); }
  using WorkerSnapshot = master::WorkerSnapshot;
  /// Its numbers and workers at one moment, for fiber top, ps RUN and
  /// metrics: counters (monotonic), gauges (status), rates.
  struct Snapshot {
    PoolCounters counters;
    Status status;
    double elapsed_seconds = 0, rate_now = 0, rate_average = 0;
    /// Seconds until every task submitted so far is done at the rate now
    /// (the average while there is none); nullopt with no rate yet.
    std::optional<double> eta_seconds;
    std::vector<WorkerSnapshot> workers;  // live ones, then the last lost
    /// Workers lost so far by EndCause::word (WorkerSet::lost_by_cause).
    std::map<std::string, std::uint64_t> lost_by_cause;
  };
  Snapshot TakeSnapshot(Clock::time_point now) const;
  /// Its counters alone (for the totals of a pool that is gone).
  PoolCounters Counters() const;

  // From the pool's user (through the dispatcher's inbox).
  void Start(Clock::time_point now);
  /// Queues calls of function as tasks of chunksize calls each; a call of
  /// the chunk form is a whole chunk of map's calls (one slot of batch).
  void Submit(std::string function, std::vector<std::string> calls, std::size_t chunksize,
              std::shared_ptr<detail::Batch> batch, Clock::time_point now,
              wire::TaskForm form = wire::TaskForm::kCalls);
  void Resize(int processes, Clock::time_point now);
  /// Workers stop once every queued task is done.
  void Close(Clock::time_point now);
  /// Fails unfinished calls with PoolClosed and kills the workers.
  void Terminate(Clock::time_point now);
  /// The run cannot go on (its I/O thread failed): every call, pending or
  /// new, fails with why, and the workers are killed.
  void Fail(const std::string& why, Clock::time_point now);

  /// True when a MANAGER_CALL of function may run here (a Manager's pool).
  bool TakesManagerCall(const std::string& function) const {
    return std::find(options_.manager_functions.begin(), options_.manager_functions.end(),
                     function) != options_.manager_functions.end();
  }

  // From the workers (through the dispatcher's socket).
  bool Owns(const std::string& worker_id) const { return crew_.workers().Find(worker_id) != nullptr; }
  bool HasConnected(const std::string& worker_id) const {
    const Worker* w = crew_.workers().Find(worker_id);
    return w && w->connected;
  }
  /// HELLO from one of its workers; false (to be refused) when that worker
  /// is connected already.
  [[nodiscard]] bool OnHello(const std::string& id, const wire::Hello& hello, Clock::time_point now);
  /// A message on this pool's channel; false when the sender is not a
  /// connected worker of this pool.
  [[nodiscard]] bool OnMessage(const std::string& id, wire::Type type, const zmq::message_t& message,
                 Clock::time_point now);
  /// Ends a worker as faulty (a message it had no business sending, a
  /// bound it broke).
  void LoseWorker(const std::string& id, const std::string& why, Clock::time_point now);
  /// Ends a worker lost for cause (Crew::End), its tasks to run again or
  /// fail, a replacement started.
  void LoseWorker(const std::string& id, const backend::EndCause& cause, Clock::time_point now);

  /// Sends worker id a HEARTBEAT, losing it when that cannot be sent (its
  /// connection closed); false when it is not, or no longer, connected.
  bool Probe(const std::string& id, Clock::time_point now);

  /// Deals pending tasks to workers with free credit; the workers found
  /// unreachable are handled once the deal is over.
  void Deal(Clock::time_point now);
  /// Backend exits, deadlines and heartbeats; call a few times a second.
  void Tick(Clock::time_point now);

 private:
  using Handler = void (PoolService::*)(const std::string&, Worker&, const zmq::message_t&,
                                        Clock::time_point);
  static Handler HandlerFor(wire::Type type);
  void OnReady(const std::string& id, Worker& w, const zmq::message_t& m, Clock::time_point now);
  void OnResult(const std::string& id, Worker& w, const zmq::message_t& m, Clock::time_point now);
  void OnHeartbeat(const std::string&, Worker&, const zmq::message_t&, Clock::time_point) {}
  void OnInitFailed(const std::string& id, Worker& w, const zmq::message_t& m,
                    Clock::time_point now);

  /// Starts the workers the crew wants; the pool breaks when the backend
  /// cannot start them.
  void StartWorkers(Clock::time_point now);
  /// Its connection closed (Crew::ConnectionClosed): lost now, or once its
  /// backend tells how it ended.
  void ConnectionClosed(const std::string& id, Clock::time_point now);
  /// The pool can run nothing more: every call, pending or new, gets outcome.
  void Break(detail::Outcome outcome);
  void CheckFinished(Clock::time_point now);

  Options options_;
  PoolPhase phase_;
  PoolStats stats_{Clock::time_point{}};
  Dealing dealing_;
  Crew crew_;  // reads dealing_'s task table: declared after it
  bool finished_ = false;
  bool in_tick_ = false;  // LoseWorker leaves starting replacements to Tick
};

}  // namespace fiber::master
