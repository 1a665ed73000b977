#include "master/run_stats.hpp"

#include <algorithm>

namespace fiber::master {

void TaskDurations::Add(double seconds) {
  const auto bucket = std::lower_bound(std::begin(kTaskSecondsBounds), std::end(kTaskSecondsBounds), seconds);
  ++buckets[static_cast<std::size_t>(bucket - std::begin(kTaskSecondsBounds))];
  sum_seconds += seconds;
  ++count;
}

void TaskDurations::Add(const TaskDurations& other) {
  for (std::size_t i = 0; i < buckets.size(); ++i) buckets[i] += other.buckets[i];
  sum_seconds += other.sum_seconds;
  count += other.count;
}

void PoolCounters::Add(const PoolCounters& o) {
  tasks_submitted += o.tasks_submitted;
  tasks_done += o.tasks_done;
  tasks_failed += o.tasks_failed;
  tasks_retried += o.tasks_retried;
  items_submitted += o.items_submitted;
  items_done += o.items_done;
  workers_started += o.workers_started;
  workers_lost += o.workers_lost;
  durations.Add(o.durations);
}

namespace {

std::int64_t SecondOf(Clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()).count();
}

}  // namespace

void RateMeter::Add(Clock::time_point now, std::uint64_t tasks) {
  const std::int64_t second = SecondOf(now);
  Slot& slot = slots_[static_cast<std::size_t>(second % static_cast<std::int64_t>(slots_.size()))];
  if (slot.second != second) slot = {second, 0};
  slot.tasks += tasks;
}

// The whole seconds of the window before the current one, and the current
// one as far as it has gone.
double RateMeter::PerSecond(Clock::time_point now, Clock::time_point since) const {
  const std::int64_t second = SecondOf(now);
  std::uint64_t tasks = 0;
  for (const Slot& slot : slots_)
    if (slot.second > second - kRateWindowSeconds && slot.second <= second) tasks += slot.tasks;
  const Clock::time_point window_start =
      std::max(since, Clock::time_point(std::chrono::seconds(second - kRateWindowSeconds + 1)));
  const double span = std::chrono::duration<double>(now - window_start).count();
  return span > 0 ? static_cast<double>(tasks) / span : 0;
}

void PoolStats::Finished(Clock::time_point now, Clock::duration took, std::uint64_t items, bool done) {
  if (done) counters_.items_done += items;
  counters_.durations.Add(std::chrono::duration<double>(took).count());
  rate_.Add(now, 1);
}

}  // namespace fiber::master
