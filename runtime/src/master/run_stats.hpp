// The numbers of a run as it runs, kept by the master for whoever shows
// them (fiber top and ps RUN through the control socket, metrics): per
// pool, monotonic counters, a histogram of task durations, a rate over a
// sliding window, and its workers that ended. Plain data another renderer
// can read; the gauges (workers by state, tasks queued and running) are
// read from the pool at the moment (PoolService::Snapshot). Not
// thread-safe: the I/O thread's.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <iterator>
#include <string>

#include "master/task_table.hpp"

namespace fiber::master {

/// Upper bounds, in seconds, of the task-duration buckets (a histogram's
/// "le", Prometheus's default buckets widened to long tasks); one more
/// bucket, unbounded, follows the last.
inline constexpr double kTaskSecondsBounds[] = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1,
                                                2.5,   5,    10,    30,    60,  300,  1800};
inline constexpr std::size_t kTaskSecondsBuckets = std::size(kTaskSecondsBounds) + 1;

/// How far back the rate "now" looks.
inline constexpr int kRateWindowSeconds = 5;

/// How many lost workers each pool shows (of those its WorkerSet keeps);
/// the count of all is PoolCounters::workers_lost.
inline constexpr std::size_t kEndedWorkersKept = 64;

/// Task durations, from when a task began (dealt to its worker, or the
/// worker's result before it came, whichever was later: as far as the
/// master can tell) to its result: each task in one bucket (not
/// cumulative), their sum and count.
struct TaskDurations {
  std::array<std::uint64_t, kTaskSecondsBuckets> buckets{};
  double sum_seconds = 0;
  std::uint64_t count = 0;
  void Add(double seconds);
  void Add(const TaskDurations& other);
};

/// One pool's monotonic counters. Tasks are the chunks of calls dealt to
/// workers; items, the caller's (map's) items they hold. Tasks done and
/// failed are the task table's (TaskTable::done, failed), copied in when
/// read (PoolService::Snapshot).
struct PoolCounters {
  std::uint64_t tasks_submitted = 0, tasks_done = 0, tasks_failed = 0;
  /// Tasks put back in the queue because their worker was lost.
  std::uint64_t tasks_retried = 0;
  std::uint64_t items_submitted = 0, items_done = 0;
  /// Workers lost: the sum of WorkerSet::lost_by_cause, copied in when read.
  std::uint64_t workers_started = 0, workers_lost = 0;
  TaskDurations durations;  // of tasks done or failed by their worker
  /// Adds a pool's that is gone, into the run's totals.
  void Add(const PoolCounters& other);
};

/// Tasks finished per second over the last kRateWindowSeconds.
class RateMeter {
 public:
  void Add(Clock::time_point now, std::uint64_t tasks);
  /// The rate over the window ending at now, or since since when that is
  /// later (a pool just started).
  double PerSecond(Clock::time_point now, Clock::time_point since) const;

 private:
  struct Slot {
    std::int64_t second = -1;
    std::uint64_t tasks = 0;
  };
  std::array<Slot, kRateWindowSeconds + 1> slots_{};
};

/// A worker's state as fiber top shows it: pending (waiting in its
/// engine's queue), starting, ready, busy (ready and holding a task),
/// retiring, lost.
inline constexpr const char* kWorkerPending = "pending";
inline constexpr const char* kWorkerBusy = "busy";
inline constexpr const char* kWorkerLost = "lost";

/// One pool's numbers that are not read off its task table and workers.
class PoolStats {
 public:
  explicit PoolStats(Clock::time_point started) : started_(started) {}

  void Submitted(std::uint64_t tasks, std::uint64_t items) {
    counters_.tasks_submitted += tasks;
    counters_.items_submitted += items;
  }
  /// A task's result came back after took; done: every call with a value.
  void Finished(Clock::time_point now, Clock::duration took, std::uint64_t items, bool done);
  void Retried(std::uint64_t tasks) { counters_.tasks_retried += tasks; }
  void WorkersStarted(std::uint64_t n) { counters_.workers_started += n; }

  const PoolCounters& counters() const { return counters_; }
  Clock::time_point started() const { return started_; }
  double RateNow(Clock::time_point now) const { return rate_.PerSecond(now, started_); }

 private:
  Clock::time_point started_;
  PoolCounters counters_;
  RateMeter rate_;
};

}  // namespace fiber::master
