#include "master/run_metrics.hpp"

#include "metrics/text_format.hpp"

namespace fiber::master {

std::string RunMetricsText(const std::map<wire::Channel, std::unique_ptr<PoolService>>& pools,
                           std::uint64_t workers_started) {
  metrics::TextFormat out;
  out.Family("fiber_workers_started_total", "counter", "Workers the run has started.");
  out.Sample("fiber_workers_started_total", {}, static_cast<double>(workers_started));

  std::map<wire::Channel, PoolService::Status> status;
  for (const auto& [channel, pool] : pools) status[channel] = pool->status();
  const auto each = [&](const char* name, const char* type, const char* help, auto value) {
    out.Family(name, type, help);
    for (const auto& [channel, s] : status)
      out.Sample(name, {{"pool", std::to_string(channel)}}, static_cast<double>(value(s)));
  };
  using S = PoolService::Status;
  each("fiber_tasks_completed_total", "counter", "Tasks finished with a result.",
       [](const S& s) { return s.tasks_done; });
  each("fiber_tasks_failed_total", "counter", "Tasks finished with an error.",
       [](const S& s) { return s.tasks_failed; });
  each("fiber_tasks_queued", "gauge", "Tasks waiting for a worker.", [](const S& s) { return s.tasks_queued; });
  each("fiber_tasks_running", "gauge", "Tasks a worker holds.", [](const S& s) { return s.tasks_running; });
  each("fiber_workers_wanted", "gauge", "Workers the pool asks for.",
       [](const S& s) { return s.workers_wanted; });
  out.Family("fiber_workers", "gauge", "The pool's workers, by state.");
  for (const auto& [channel, s] : status)
    out.Sample("fiber_workers", {{"pool", std::to_string(channel)}, {"state", "ready"}},
               static_cast<double>(s.workers_ready));
  return out.text();
}

}  // namespace fiber::master
