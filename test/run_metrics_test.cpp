// master/run_metrics: the pools' snapshots as the /metrics page says them.
#include "master/run_metrics.hpp"

#include <doctest/doctest.h>

namespace {

bool Has(const std::string& text, const std::string& line) { return text.find(line + "\n") != std::string::npos; }

}  // namespace

TEST_CASE("each pool's counters, workers by state, losses by reason and task durations") {
  fiber::master::PoolService::Snapshot s;
  s.counters.tasks_submitted = 10;
  s.counters.tasks_done = 7;
  s.counters.tasks_failed = 1;
  s.counters.tasks_retried = 2;
  s.counters.durations.Add(0.003);
  s.counters.durations.Add(0.2);
  s.status.tasks_queued = 2;
  s.status.workers_wanted = 3;
  s.workers = {{"w0", 1, "ready", "", 0, 4, ""},
               {"w1", 2, "busy", "f (item 3)", 1.5, 3, ""},
               {"w2", 3, "lost", "", 0, 0, "killed by SIGSEGV"}};
  s.lost_by_cause = {{"signal", 1}, {"oom", 2}};
  const std::string text = fiber::master::RunMetricsText({{4, s}}, 5);

  CHECK(Has(text, "fiber_workers_started_total 5"));
  CHECK(Has(text, "fiber_tasks_submitted_total{pool=\"4\"} 10"));
  CHECK(Has(text, "fiber_tasks_completed_total{pool=\"4\"} 7"));
  CHECK(Has(text, "fiber_tasks_failed_total{pool=\"4\"} 1"));
  CHECK(Has(text, "fiber_tasks_retried_total{pool=\"4\"} 2"));
  CHECK(Has(text, "fiber_tasks_queued{pool=\"4\"} 2"));
  CHECK(Has(text, "fiber_workers_wanted{pool=\"4\"} 3"));
  // Every state has its series; a lost worker is counted by reason, not as a state.
  CHECK(Has(text, "fiber_workers{pool=\"4\",state=\"ready\"} 1"));
  CHECK(Has(text, "fiber_workers{pool=\"4\",state=\"busy\"} 1"));
  CHECK(Has(text, "fiber_workers{pool=\"4\",state=\"pending\"} 0"));
  CHECK(text.find("state=\"lost\"") == std::string::npos);
  CHECK(Has(text, "fiber_workers_lost_total{pool=\"4\",reason=\"oom\"} 2"));
  CHECK(Has(text, "fiber_workers_lost_total{pool=\"4\",reason=\"signal\"} 1"));
  CHECK(Has(text, "fiber_task_duration_seconds_bucket{pool=\"4\",le=\"0.005\"} 1"));
  CHECK(Has(text, "fiber_task_duration_seconds_bucket{pool=\"4\",le=\"0.25\"} 2"));
  CHECK(Has(text, "fiber_task_duration_seconds_bucket{pool=\"4\",le=\"+Inf\"} 2"));
  CHECK(Has(text, "fiber_task_duration_seconds_count{pool=\"4\"} 2"));
  CHECK(Has(text, "# TYPE fiber_task_duration_seconds histogram"));
}
