// One pool's crew: its workers from start to end. It starts them (as many
// as its sizer wants, as many at once as its backend takes), connects,
// probes and retires them (resized, idle, spent, drained), and ends them,
// saying and keeping how each was lost; it owns the worker set, the sizer
// and the backend. It reads the pool's task table but never changes it:
// what a loss means for tasks, or a failed start for the pool, is handed
// back to its caller. Driven by the dispatcher's I/O thread only, so not
// thread-safe.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "backend/backend.hpp"
#include "master/awaited_exits.hpp"
#include "master/outbox.hpp"
#include "master/pool_phase.hpp"
#include "master/pool_service_options.hpp"
#include "master/run_stats.hpp"
#include "master/sizer.hpp"
#include "master/task_table.hpp"
#include "master/worker_loss.hpp"
#include "master/worker_set.hpp"
#include "master/worker_snapshot.hpp"
#include "wire/message.hpp"

namespace fiber::master {

class Crew {
 public:
  Crew(const PoolServiceOptions& options, const PoolPhase& phase, const TaskTable& tasks,
       std::unique_ptr<backend::Backend> backend, Outbox& outbox, PoolStats& stats);
  /// Says the losses still held, and kills every worker still there.
  ~Crew();

  WorkerSet& workers() { return workers_; }
  const WorkerSet& workers() const { return workers_; }
  const Sizer& sizer() const { return sizer_; }
  /// The pool's workers are all gone, and each lost one's end was seen.
  bool gone() const { return workers_.empty() && awaiting_exit_.empty(); }

  /// Starts as many workers as the sizer wants and the backend has room
  /// for (a closed pool only while tasks remain); returns why the backend
  /// cannot start them, when it cannot.
  [[nodiscard]] std::optional<std::string> StartWorkers(Clock::time_point now);
  /// An elastic pool's target grows while tasks wait for a worker; true
  /// when workers should start.
  [[nodiscard]] bool Grow();
  /// The pool now has processes workers: those past it retire.
  void Resize(int processes, Clock::time_point now);

  /// What a HELLO came to.
  enum class Hello { kRefused, kUnreachable, kWelcomed };
  /// HELLO from worker id: connected and sent its WELCOME; refused when it
  /// is connected already.
  [[nodiscard]] Hello Connect(const std::string& id, long pid, Clock::time_point now);
  /// READY: it takes up to credit tasks.
  void OnReady(Worker& worker, int credit, Clock::time_point now);
  /// After a result left it holding nothing: a worker dealt its
  /// max_tasks_per_child retires (true: a new one is to start), and a
  /// retiring one is told to stop.
  [[nodiscard]] bool OnIdle(const std::string& id, Clock::time_point now);
  /// An elastic pool retires workers idle for longer than its idle timeout.
  void RetireIdle(Clock::time_point now);
  /// A closed or broken pool with no task left: every worker stops.
  void StopAll(Clock::time_point now);
  /// Terminate: every worker told to stop and killed.
  void StopAndKillAll(Clock::time_point now);
  /// The pool broke: every worker killed and retiring.
  void KillAll();

  /// Its connection closed: true when it is to be lost now (it had nothing
  /// left to do); otherwise it is lost when its backend reports how it ended
  /// (so the report says "killed by SIGSEGV"), or a short wait later.
  [[nodiscard]] bool ConnectionClosed(const std::string& id, Clock::time_point now);
  /// Sends a HEARTBEAT; false when it cannot be sent (its connection closed).
  [[nodiscard]] bool Probe(const std::string& id, Clock::time_point now);

  /// A worker ended for cause, as End tells it.
  struct Loss {
    std::string why;         // "killed by SIGSEGV while running square (item 3)"
    bool lost = false;       // a loss, not a worker done anyway
  };
  /// Ends worker id for cause: said once as a warning (with the task it
  /// ran and its retries left) unless it was done anyway, kept in the
  /// worker set's record, killed. A connection lost is said once the
  /// backend tells how the worker ended (WorkerSet::Settle). nullopt when
  /// id is not of the crew. Its tasks are the caller's to move on.
  std::optional<Loss> End(const std::string& id, const backend::EndCause& cause, Clock::time_point now);

  /// The ends the backend reports, applied as they mean (MeaningOf): a
  /// worker retired as asked leaves; one lost with its connection is said,
  /// with its engine's cause; the others are returned, for the caller to
  /// lose (then Exited).
  [[nodiscard]] std::vector<ExitLoss> Poll(Clock::time_point now);
  /// The backend has seen worker id end: the pool need not wait for it.
  void Exited(const std::string& id) { awaiting_exit_.Seen(id); }
  /// What the deadlines call for: heartbeats and kills are sent; returns
  /// the workers to lose, with why.
  [[nodiscard]] std::vector<std::pair<std::string, backend::EndCause>> Overdue(Clock::time_point now);

  /// Its live workers, then the last lost, as fiber top shows them.
  std::vector<WorkerSnapshot> Snapshot(Clock::time_point now) const;

 private:
  [[nodiscard]] bool SendControl(const std::string& id, wire::Type type, Clock::time_point now);
  /// Retires workers past the sizer's target.
  void Retire(Clock::time_point now);

  const PoolServiceOptions& options_;
  const PoolPhase& phase_;
  const TaskTable& tasks_;
  std::unique_ptr<backend::Backend> backend_;  // its workers: a group of the run's backend
  Outbox& outbox_;
  PoolStats& stats_;
  Deadlines deadlines_;
  WorkerSet workers_;
  Sizer sizer_;
  AwaitedExits awaiting_exit_;  // each at most heartbeat_timeout
};

}  // namespace fiber::master
