// One pool's dealing: its task table, and how tasks go to workers and come
// back: leases within each worker's credit, results checked before they are
// read, work stealing, task timeouts, and each result charged to the worker
// that sent it until the program takes it. It reads and marks the crew's
// workers (the WorkerSet its calls are given) but never loses one: a worker it finds unreachable, or one to
// kill, is handed back to its caller, to handle once it has returned (so
// dealing is never re-entered from a loss). Driven by the dispatcher's I/O
// thread only, so not thread-safe.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "backend/end_cause.hpp"
#include "master/outbox.hpp"
#include "master/pool_phase.hpp"
#include "master/pool_service_options.hpp"
#include "master/run_stats.hpp"
#include "master/task_table.hpp"
#include "master/worker_set.hpp"

namespace fiber::master {

class Dealing {
 public:
  Dealing(const PoolServiceOptions& options, const PoolPhase& phase, Outbox& outbox, PoolStats& stats);

  const TaskTable& tasks() const { return tasks_; }

  /// Queues calls of function as tasks of chunksize calls each; a call of
  /// the chunk form is a whole chunk of map's calls (one slot of batch).
  void Submit(std::string function, std::vector<std::string> calls, std::size_t chunksize,
              std::shared_ptr<detail::Batch> batch, wire::TaskForm form);
  /// Deals pending tasks to workers with free credit. Returns the workers
  /// it could not reach (their connection closed): theirs to handle by the
  /// caller once the deal is over.
  [[nodiscard]] std::vector<std::string> Deal(WorkerSet& workers, Clock::time_point now);

  /// What a RESULT came to.
  struct Answer {
    std::optional<std::string> fault;  // the worker is to be lost: why
    bool idle = false;                 // it holds no task now
  };
  /// A RESULT from worker id: checked before its outcomes are read, so a
  /// faulty worker's message costs the master no more than the tasks it
  /// holds (refused whole: nothing counted); then each task it answers is
  /// finished, its outcomes to the caller.
  [[nodiscard]] Answer OnResult(WorkerSet& workers, const std::string& id, const zmq::message_t& message,
                                Clock::time_point now);
  /// Fails with TimeoutError each task that has run longer than the task
  /// timeout; the tasks queued behind it go back to the queue. Returns its
  /// workers, to be killed, with why.
  [[nodiscard]] std::vector<std::pair<std::string, backend::EndCause>> TimeOut(const WorkerSet& workers, Clock::time_point now);
  /// Work stealing: while no task waits, for each worker holding no task,
  /// a busy worker whose task has run for kStealAfter is asked (REVOKE) to
  /// skip the last task queued behind it. A task it skipped goes back to
  /// the front of the queue when its answer comes, for the next deal; one
  /// it had started stays its own, its result counting as any: no task
  /// runs twice. Returns the workers it could not reach (as Deal's).
  [[nodiscard]] std::vector<std::string> Steal(WorkerSet& workers, Clock::time_point now);
  /// Worker id was lost (why says how): its tasks run again or fail
  /// (TaskTable::Lose).
  void Lose(const std::string& id, const std::string& why);
  /// Every call, pending or running, gets outcome.
  void FailAll(const detail::Outcome& outcome) { tasks_.FailAll(outcome); }
  /// Returns the charges of results whose batch the program has dropped;
  /// true when any was returned (a worker held back may be dealt again).
  bool ReleaseTaken();

 private:
  /// True when worker id may be dealt one more task: within its credit and
  /// its max_tasks_per_child.
  bool HasRoom(const std::string& id, const Worker& w) const;
  /// Charges cost, a result delivered to batch, to worker id
  /// (PoolServiceOptions::budget), whatever its size: the program asked for
  /// it (one larger than the whole budget holds its worker back until it
  /// is taken).
  void Charge(const std::string& id, const std::shared_ptr<detail::Batch>& batch, PeerBudget::Usage cost);
  /// True when worker id holds all its budget's bytes, or more.
  bool OverBudget(const std::string& id) const;
  /// True when a live worker of the pool has bytes left: then those with
  /// none are dealt nothing (while none has, dealing goes on, or a
  /// program waiting for all its results would wait forever).
  bool AnyWithinBudget(const WorkerSet& workers) const;

  const PoolServiceOptions& options_;
  const PoolPhase& phase_;
  Outbox& outbox_;
  PoolStats& stats_;
  TaskTable tasks_;
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
