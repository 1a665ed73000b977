#include "master/run_metrics.hpp"

#include <map>

#include "metrics/text_format.hpp"

namespace fiber::master {

namespace {

// The states fiber_workers has a series for, each pool's always, so that a
// state with no worker reads 0 rather than missing.
constexpr const char* kStates[] = {kWorkerPending, "starting", "ready", kWorkerBusy, "retiring"};

}  // namespace

std::string RunMetricsText(const RunStatus::Pools& pools, std::uint64_t workers_started) {
  metrics::TextFormat out;
  out.Family("fiber_workers_started_total", "counter", "Workers the run has started.");
  out.Sample("fiber_workers_started_total", {}, static_cast<double>(workers_started));

  using Snapshot = PoolService::Snapshot;
  const auto each = [&](const char* name, const char* type, const char* help, auto value) {
    out.Family(name, type, help);
    for (const auto& [channel, s] : pools)
      out.Sample(name, {{"pool", std::to_string(channel)}}, static_cast<double>(value(s)));
  };
  each("fiber_tasks_submitted_total", "counter", "Tasks submitted (a map's chunk is one task).",
       [](const Snapshot& s) { return s.counters.tasks_submitted; });
  each("fiber_tasks_completed_total", "counter", "Tasks finished with a result.",
       [](const Snapshot& s) { return s.counters.tasks_done; });
  each("fiber_tasks_failed_total", "counter", "Tasks finished with an error.",
       [](const Snapshot& s) { return s.counters.tasks_failed; });
  each("fiber_tasks_retried_total", "counter", "Tasks queued again because their worker was lost.",
       [](const Snapshot& s) { return s.counters.tasks_retried; });
  each("fiber_items_submitted_total", "counter", "Calls submitted (a map's items).",
       [](const Snapshot& s) { return s.counters.items_submitted; });
  each("fiber_items_completed_total", "counter", "Calls finished with a result.",
       [](const Snapshot& s) { return s.counters.items_done; });
  each("fiber_tasks_queued", "gauge", "Tasks waiting for a worker.",
       [](const Snapshot& s) { return s.status.tasks_queued; });
  each("fiber_tasks_running", "gauge", "Tasks workers hold.", [](const Snapshot& s) { return s.status.tasks_running; });
  each("fiber_workers_wanted", "gauge", "Workers the pool asks for.",
       [](const Snapshot& s) { return s.status.workers_wanted; });

  out.Family("fiber_workers", "gauge", "The pool's live workers, by state.");
  for (const auto& [channel, s] : pools) {
    std::map<std::string, int> by_state;
    for (const auto& w : s.workers) ++by_state[w.state];
    for (const char* state : kStates)
      out.Sample("fiber_workers", {{"pool", std::to_string(channel)}, {"state", state}}, by_state[state]);
  }
  out.Family("fiber_workers_lost_total", "counter", "Workers lost, by why they ended.");
  for (const auto& [channel, s] : pools)
    for (const auto& [reason, n] : s.lost_by_cause)
      out.Sample("fiber_workers_lost_total", {{"pool", std::to_string(channel)}, {"reason", reason}},
                 static_cast<double>(n));
  out.Family("fiber_task_duration_seconds", "histogram",
             "Time from a task's start on a worker to its result, as the master sees it.");
  for (const auto& [channel, s] : pools) {
    const TaskDurations& d = s.counters.durations;
    out.Histogram("fiber_task_duration_seconds", {{"pool", std::to_string(channel)}}, kTaskSecondsBounds,
                  d.buckets, d.sum_seconds);
  }
  return out.text();
}

}  // namespace fiber::master
