// One pool's workers as the master sees them: each one's state, credit and
// the times its deadlines run from, and how the last ones to go ended. The
// one place a worker's state changes.
// Not thread-safe: owned by the I/O thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "backend/end_cause.hpp"
#include "fiber/pool_options.hpp"
#include "master/task_table.hpp"

namespace fiber::master {

struct Worker {
  WorkerState state = WorkerState::kStarting;
  bool connected = false;  // said HELLO
  int credit = 0;          // tasks it may hold (READY, RESULT)
  long pid = 0;
  std::uint64_t tasks_done = 0;  // results it sent
  Clock::time_point started, last_sent;
  Clock::time_point idle_since;  // when it last came to hold no task
  /// When the task it runs began, as far as the master can tell: when it
  /// was dealt to the worker holding none, or when the result before it came.
  Clock::time_point busy_since;
  int dealt = 0;  // tasks dealt to it and not taken back (max_tasks_per_child)
  /// Tasks it holds and was asked to skip (work stealing) that it has not
  /// answered yet: with no outcome (skipped: taken back then), or with
  /// outcomes (it had started: they count).
  std::multiset<std::uint64_t> revoked;
  std::optional<Clock::time_point> stop_sent;  // told to STOP at
  /// Its connection closed at: lost once its backend reports how it ended,
  /// or a short wait later.
  std::optional<Clock::time_point> closed_at;
};

/// A worker that left the set, and why: what fiber top and the metrics
/// show of it.
struct WorkerEnd {
  std::string id;
  backend::EndCause cause;
  /// The task it ran as it ended ("boom (item 3)"); "" when none.
  std::string task;
  /// How many more times that task could be lost and run again, this loss
  /// counted in (TaskTable::RetriesLeft); 0: it failed with this loss.
  int retries_left = 0;
  /// A loss (reported to the user), not a worker retired as asked.
  bool lost = false;
  Clock::time_point at;
  long pid = 0;
  std::uint64_t tasks_done = 0;
};

/// How many WorkerEnd a set keeps, the last ones: what a view of a run
/// shows, bounded however many workers a long run loses.
inline constexpr std::size_t kMostEndedKept = 256;

/// How long workers may be silent or slow, from the run's settings.
struct Deadlines {
  std::chrono::milliseconds start_timeout;
  /// How often a HEARTBEAT checks that a quiet worker's connection stands
  /// (the dispatcher also checks at once when a connection closes).
  std::chrono::milliseconds probe_interval;
  std::chrono::milliseconds heartbeat_timeout;
};

/// What the deadlines call for at some moment (WorkerSet::Due).
struct DueWork {
  std::vector<std::pair<std::string, backend::EndCause>> lost;  // id, why
  std::vector<std::string> kill;       // told to stop, still running
  std::vector<std::string> heartbeat;  // nothing sent to for a probe interval
};

class WorkerSet {
 public:
  Worker& Add(const std::string& id, Clock::time_point now);
  Worker* Find(const std::string& id);
  const Worker* Find(const std::string& id) const;
  /// Takes the worker out of the set, keeping how it ended. A loss held
  /// (one lost with its connection, whose engine may yet tell why) is
  /// neither kept nor counted until Settle.
  void End(WorkerEnd ended, bool held = false);
  bool empty() const { return workers_.empty(); }
  /// Workers not retiring.
  int Live() const;
  /// Workers started and not yet connected.
  int Starting() const;

  /// HELLO from a worker started and not yet connected; false otherwise.
  [[nodiscard]] bool Connect(const std::string& id, long pid);
  /// READY or RESULT: the worker takes up to credit tasks.
  void SetCredit(Worker& worker, int credit);
  void Retire(Worker& worker) { worker.state = WorkerState::kRetiring; }
  void MarkStopSent(Worker& worker, Clock::time_point now) { worker.stop_sent = now; }

  /// Ready workers with free credit, those holding fewest tasks first.
  /// Pointers into the set: valid until a worker is added or removed.
  std::vector<std::pair<const std::string*, Worker*>> WithFreeCredit(const TaskTable& tasks);
  /// Live workers to retire so that at most target stay: starting ones
  /// first, then those holding fewest tasks.
  std::vector<std::string> PickRetirees(int target, const TaskTable& tasks) const;
  /// Ready workers holding no task since before cutoff, longest idle first.
  std::vector<std::string> IdleSince(Clock::time_point cutoff, const TaskTable& tasks) const;
  DueWork Due(Clock::time_point now, const Deadlines& deadlines) const;

  std::vector<WorkerInfo> Describe(const TaskTable& tasks) const;
  const std::map<std::string, Worker>& all() const { return workers_; }
  /// A held loss told at last: with the cause its engine gave (its pod
  /// evicted, its Slurm job past its time limit), or as held without one.
  /// Then kept and counted, once; nullopt when none is held for id.
  std::optional<WorkerEnd> Settle(const std::string& id, const backend::EndCause* cause);
  /// The workers whose losses are held.
  std::vector<std::string> Held() const;
  /// The last kMostEndedKept workers to end, oldest first.
  const std::deque<WorkerEnd>& ended() const { return ended_; }
  /// Workers lost so far, by EndCause::word: never decreasing.
  const std::map<std::string, std::uint64_t>& lost_by_cause() const { return lost_by_cause_; }

 private:
  /// Keeps how a worker ended (the last kMostEndedKept), counting a loss.
  void Keep(WorkerEnd ended);

  std::map<std::string, Worker> workers_;
  std::deque<WorkerEnd> ended_;
  std::map<std::string, WorkerEnd> held_;
  std::map<std::string, std::uint64_t> lost_by_cause_;
};

}  // namespace fiber::master
