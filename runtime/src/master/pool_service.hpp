// One Pool as the run's master serves it: its task table, its workers, its
// backend, and the rules that tie them together (dealing tasks, retrying
// lost ones, replacing lost workers, timing tasks out, stealing tasks for
// idle workers, resizing, closing, charging each worker for the results it
// sent that the program has not taken). Driven by the dispatcher's I/O thread
// only, so not thread-safe; the time comes in as an argument and messages
// go out through an Outbox, so tests drive it with no socket, process or
// sleep.
#pragma once

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "config/settings.hpp"
#include "fiber/pool.hpp"
#include "master/outbox.hpp"
#include "master/peer_budget.hpp"
#include "master/run_stats.hpp"
#include "master/sizer.hpp"
#include "master/task_table.hpp"
#include "master/worker_set.hpp"
#include "wire/codec.hpp"
#include "wire/message.hpp"
#include "worker/bootstrap.hpp"

namespace fiber::master {

class PoolService {
 public:
  struct Options {
    wire::Channel channel = 1;
    int processes = 1;
    /// Set: the pool sizes itself within these bounds, and processes is
    /// not used.
    using Elastic = Sizer::Elastic;
    std::optional<Elastic> elastic;
    int max_task_retries = 3;
    /// PoolOptions' task_timeout and max_tasks_per_child (fiber/pool.hpp).
    std::optional<std::chrono::milliseconds> task_timeout;
    std::optional<int> max_tasks_per_child;
    Call initializer;
    config::Settings settings;
    /// What every worker of the run is handed; worker_id is filled per worker.
    worker::Bootstrap bootstrap;
    /// A worker id unique within the run.
    std::function<std::string()> new_worker_id;
    /// Called once, when the pool has finished (closed and drained, or
    /// terminated) and every worker is gone.
    std::function<void()> on_finished;
    /// What each worker asks its backend for.
    Resources resources;
    /// False for a pool of one job-backed process (a Process, a Manager):
    /// a lost worker is not replaced, and every call, pending or later,
    /// fails with WorkerLost.
    bool replace_lost_workers = true;
    /// Called with every exit the backend reports for a worker of the pool.
    std::function<void(const backend::Exit&)> on_exit;
    /// The functions a MANAGER_CALL may run in this pool: a Manager's
    /// built-ins; empty for any other pool, which takes none.
    std::vector<std::string> manager_functions;
    /// Called when a worker has said HELLO: its id and pid.
    std::function<void(const std::string&, long)> on_connected;
    /// The run's budget (RequestService's): each result is charged to the
    /// worker that sent it, its bytes and wire::kHeldOverheadBytes per
    /// call, until the program drops the result (its AsyncResult or
    /// IMapResult; seen at the next Tick) or the pool goes. A worker holding all its bytes (or
    /// more) is dealt no more while another of the pool is within its own;
    /// a result larger than the whole budget is kept too (the message
    /// limit bounds it). Null: results are not charged.
    std::shared_ptr<PeerBudget> budget;
  };
  PoolService(Options options, std::unique_ptr<backend::Backend> backend, Outbox& outbox);
  /// Kills every worker still there.
  ~PoolService();

  wire::Channel channel() const { return options_.channel; }
  bool finished() const { return finished_; }
  std::vector<WorkerInfo> Workers() const { return workers_.Describe(tasks_); }
  /// Its numbers, as `fiber ps` shows them.
  struct Status {
    int workers_wanted = 0, workers_ready = 0;
    std::size_t tasks_running = 0, tasks_queued = 0;  // chunks of calls, as dealt
    std::size_t tasks_done = 0, tasks_failed = 0;     // finished so far
  };
  Status status() const;
  /// Its workers, and how the last ones to go ended (WorkerSet::ended,
  /// lost_by_cause): for fiber top and the metrics.
  const WorkerSet& workers() const { return workers_; }
  /// One worker as fiber top shows it.
  struct WorkerSnapshot {
    std::string id;
    long pid = 0;
    std::string state;         // to_string(WorkerState), or kWorkerPending, kWorkerBusy, kWorkerLost
    std::string task;          // what it runs (TaskTable::Running); empty when idle
    double task_seconds = 0;   // how long it has held it
    std::uint64_t tasks_done = 0;
    std::string ended;         // a lost one's: why
  };
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
  bool Owns(const std::string& worker_id) const { return workers_.Find(worker_id) != nullptr; }
  bool HasConnected(const std::string& worker_id) const {
    const Worker* w = workers_.Find(worker_id);
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
  /// Ends a worker lost for cause: said once as a warning (with the task
  /// it ran and its retries left) unless it was done anyway, kept in the
  /// worker set's record (workers()), its tasks to run again or fail. A
  /// connection lost is said once the backend tells how the worker ended
  /// (WorkerSet::Settle).
  void LoseWorker(const std::string& id, const backend::EndCause& cause, Clock::time_point now);
  /// "worker w3 lost: WHY while running TASK; N retries left", as a warning.
  static void SayLoss(const WorkerEnd& loss);

  /// Sends worker id a HEARTBEAT, losing it when that cannot be sent (its
  /// connection closed); false when it is not, or no longer, connected.
  bool Probe(const std::string& id, Clock::time_point now);

  /// Deals pending tasks to workers with free credit.
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

  /// True when worker id may be dealt one more task: within its credit and
  /// its max_tasks_per_child.
  bool HasRoom(const std::string& id, const Worker& w) const;
  /// Fails with TimeoutError each task that has run longer than the task
  /// timeout, and kills its worker; the tasks queued behind it go back to
  /// the queue.
  void TimeOut(Clock::time_point now);
  /// Work stealing: while no task waits, a worker holding no task takes one
  /// queued behind a task that has run for kStealAfter on another worker,
  /// which is told (REVOKE) not to run it.
  void Steal(Clock::time_point now);
  /// The worker has run its max_tasks_per_child tasks: it retires and a
  /// new one starts.
  void RetireIfSpent(const std::string& id, Worker& w, Clock::time_point now);
  void StartWorkers(Clock::time_point now);
  /// An elastic pool's target: grows while tasks wait for a worker.
  void Grow(Clock::time_point now);
  /// An elastic pool retires workers idle for longer than its idle timeout.
  void RetireIdle(Clock::time_point now);
  void Retire(Clock::time_point now);
  /// The pool can run nothing more: every call, pending or new, gets outcome.
  void Break(detail::Outcome outcome);
  void CheckFinished(Clock::time_point now);
  /// Its connection closed: it is lost when its backend reports how it
  /// ended (so the report says "killed by SIGSEGV"), or a short wait later.
  void OnConnectionClosed(const std::string& id, Clock::time_point now);
  [[nodiscard]] bool SendControl(const std::string& id, wire::Type type, Clock::time_point now);
  /// Charges outcomes, the result of task, to worker id (Options::budget),
  /// whatever their size: the program asked for them (one larger than the
  /// whole budget holds its worker back until it is taken).
  void ChargeResult(const std::string& id, std::uint64_t task, const std::vector<detail::Outcome>& outcomes);
  /// Returns the charges of results whose batch the program has dropped;
  /// true when any was returned.
  bool ReleaseTaken();
  /// True when worker id holds all its budget's bytes, or more.
  bool OverBudget(const std::string& id) const;
  /// True when a live worker of the pool has bytes left: then those with
  /// none are dealt nothing (while none has, dealing goes on, or a
  /// program waiting for all its results would wait forever).
  bool AnyWithinBudget() const;

  Options options_;
  Deadlines deadlines_;
  std::unique_ptr<backend::Backend> backend_;  // its workers: a group of the run's backend
  Outbox& outbox_;
  TaskTable tasks_;
  WorkerSet workers_;
  Sizer sizer_;
  PoolStats stats_{Clock::time_point{}};
  bool closing_ = false;
  bool terminating_ = false;
  bool finished_ = false;
  bool in_tick_ = false;  // LoseWorker leaves starting replacements to Tick
  std::optional<detail::Outcome> broken_;  // why the pool can run nothing more
  /// Lost workers whose exit the backend has not reported yet, by when
  /// they were lost; each waits at most heartbeat_timeout. The pool
  /// finishes only when none waits.
  std::map<std::string, Clock::time_point> awaiting_exit_;
  /// The charges of results delivered, by batch and worker; a batch's
  /// address is checked against its weak_ptr, so a new batch at a dropped
  /// one's address is not taken for it.
  struct HeldResults {
    std::weak_ptr<detail::Batch> batch;
    PeerBudget::Hold hold;
  };
  std::map<std::pair<const detail::Batch*, std::string>, HeldResults> held_results_;
};

}  // namespace fiber::master
