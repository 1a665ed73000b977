// What a run on an engine says of a worker it lost, as a user watching it
// reads it: the loss counted under its reason in the master's /metrics (a
// page promtool accepts), listed by fiber top with why it ended, said once
// in the run's log; and at the end, fiber top's and ps RUN's counts of
// what the program did. For the cluster and Slurm suites.
#pragma once

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/fiber_command.hpp"
#include "support/metrics_page.hpp"
#include "support/temp_dir.hpp"

namespace fiber::testing {

// While run_id, a map of m tasks, runs: worker, lost, counted under
// reason in the master's /metrics at metrics (a page promtool accepts,
// whose counters agree with the map; none when metrics is ""), and listed
// by fiber top as ended because of what.
inline void CheckLossWhileItRuns(Fiber& fiber, const std::string& run_id, const std::string& metrics, long m,
                                 const std::string& worker, const std::string& reason, const std::string& what,
                                 int seconds = 60) {
  std::string ended;
  CHECK_MESSAGE(eventually([&] {
                  ended = fiber.EndedWorkers(run_id);
                  return ended.find(worker + ": " + what) != std::string::npos;
                }, seconds),
                ended);
  if (metrics.empty()) return;
  std::string page;
  const std::string labelled = "reason=\"" + reason + "\"";
  CHECK_MESSAGE(eventually([&] {
                  page = Get("http://" + metrics + "/metrics").second;
                  return SumOf(page, "fiber_workers_lost_total", labelled) >= 1;
                }, seconds),
                page);
  CHECK_MESSAGE(SumOf(page, "fiber_workers_lost_total", labelled) == 1, page);
  // Not counted first as a connection lost: its loss waited for the engine's word.
  CHECK_MESSAGE(SumOf(page, "fiber_workers_lost_total", "reason=\"connection_lost\"") == 0, page);
  CHECK(SumOf(page, "fiber_tasks_submitted_total") == m);
  CHECK(SumOf(page, "fiber_tasks_completed_total") < m);
  CHECK(SumOf(page, "fiber_task_duration_seconds_count") == SumOf(page, "fiber_tasks_completed_total"));
  CHECK(SumOf(page, "fiber_workers_started_total") >= 1);
  TempDir dir;
  const auto [lint, said] = Promtool(page, dir);
  CHECK_MESSAGE(lint == 0, said << page);
}

/// A worker and why it ended, as a run's log and stderr say it.
struct Loss {
  std::string worker, what;
};

/// How many times text says loss ("worker w0 lost: WHAT").
inline std::size_t TimesSaid(const std::string& text, const Loss& loss) {
  return Occurrences(text, "worker " + loss.worker + " lost: " + loss.what);
}

// The run's end: its log says each of lost once, fiber top and ps RUN
// count every task of the map of m once, and the losses.
inline void CheckEnd(Fiber& fiber, const std::string& run_id, const std::vector<Loss>& lost, long m) {
  auto [logged, master_log, log_err] = fiber.Run({"logs", run_id});
  for (const Loss& loss : lost)
    CHECK_MESSAGE(TimesSaid(master_log, loss) == 1, loss.worker << ": " << loss.what << " in " << master_log);
  const nlohmann::json end = fiber.Top(run_id);
  CHECK(end["state"] == "exited");
  CHECK(end["tasks_done"] == m);
  CHECK(end["items_done"] == m);
  CHECK(end["tasks_failed"] == 0);
  CHECK(end["workers_lost"] == lost.size());
  CHECK(end["pools"][0]["task_seconds"]["count"] == m);
  auto [shown, detail, shown_err] = fiber.Run({"ps", "--json", run_id});
  const nlohmann::json ps = nlohmann::json::parse(detail);
  for (const char* key : {"tasks_done", "items_done", "workers_lost", "workers_started", "workers"})
    CHECK_MESSAGE(ps[key] == end[key], key);
}

}  // namespace fiber::testing
