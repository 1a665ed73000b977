// master/run_report: the run's numbers as fiber ps, fiber top and /metrics
// read them, from live pools and pools gone, on a clock the test moves.
#include "master/run_report.hpp"

#include <doctest/doctest.h>

#include <ctime>
#include <nlohmann/json.hpp>

#include "runs/control_protocol.hpp"
#include "support/scripted_pools.hpp"
#include "tasks.hpp"
#include "wire/codec.hpp"

using fiber::master::Clock;
using fiber::master::PoolService;
using nlohmann::json;

namespace {

// A run's pools and report, with workers played by the test.
struct Run {
  Run() : requests([this](fiber::wire::Channel c) { return scripted.pools.Find(c); },
                   [](const std::string&) { return false; }, {}),
          report(scripted.pools, requests, started) {}

  /// Adds a pool of one worker on channel.
  PoolService& AddPool(fiber::wire::Channel channel) { return scripted.Add(channel, now); }
  /// Submits n squares to pool.
  void Submit(PoolService& pool, int n) {
    std::vector<std::string> calls;
    for (int i = 0; i < n; ++i) calls.push_back(fiber::detail::encode_args(square, i));
    batches.push_back(std::make_shared<fiber::detail::Batch>(calls.size()));
    pool.Submit("square", std::move(calls), 1, batches.back(), now);
  }
  /// Worker id of pool connects and runs one task it is dealt to its end.
  void RunOne(PoolService& pool, const std::string& id) {
    REQUIRE(pool.OnHello(id, fiber::wire::Hello{1}, now));
    REQUIRE(pool.OnMessage(id, fiber::wire::Type::kReady,
                           fiber::wire::Encode(fiber::wire::Ready{1}, pool.channel()), now));
    pool.Deal(now);
    const std::uint64_t task = scripted.outbox.TaskIds(id).at(0);
    fiber::wire::Writer w(fiber::wire::Type::kResult, pool.channel());
    w.U32(1);
    fiber::wire::AppendResultHead(w, task, 1);
    fiber::wire::AppendOutcome(w, {fiber::wire::OutcomeKind::kValue, fiber::detail::to_bytes(0), {}});
    REQUIRE(pool.OnMessage(id, fiber::wire::Type::kResult, w.Finish(), now));
  }
  /// The pool on channel goes.
  void Remove(fiber::wire::Channel channel) {
    const auto pool = scripted.pools.Remove(channel);
    report.PoolGone(channel, *pool, now);
  }

  Clock::time_point started = Clock::time_point() + std::chrono::hours(1);
  Clock::time_point now = started;
  fiber::testing::ScriptedPools scripted;
  fiber::master::RequestService requests;
  fiber::master::RunReport report;
  std::vector<std::shared_ptr<fiber::detail::Batch>> batches;  // the program's, kept
};

bool Has(const std::string& text, const std::string& line) { return text.find(line + "\n") != std::string::npos; }

}  // namespace

TEST_CASE("a pool's tasks stay in the run's totals after it goes, and it is listed as finished") {
  Run run;
  PoolService& first = run.AddPool(1);
  PoolService& second = run.AddPool(2);
  run.Submit(first, 1);
  run.RunOne(first, "w0");
  run.Submit(second, 3);

  json status = json::parse(run.report.StatusJson());
  CHECK(status["pools"] == 2);
  CHECK(status["workers_started"] == 2);
  CHECK(status["tasks_done"] == 1);
  CHECK(status["tasks_queued"] == 3);

  run.Remove(1);
  status = json::parse(run.report.StatusJson());
  CHECK(status["pools"] == 1);
  CHECK(status["tasks_done"] == 1);
  CHECK(status["tasks_queued"] == 3);

  const json full = json::parse(run.report.RunStatusJson(run.now));
  CHECK(full["tasks_done"] == 1);
  CHECK(full["tasks_submitted"] == 4);
  REQUIRE(full["pools"].size() == 2);
  CHECK(full["pools"][0]["pool"] == 2);
  CHECK(full["pools"][0]["finished"] == false);
  CHECK(full["pools"][1]["pool"] == 1);
  CHECK(full["pools"][1]["finished"] == true);
  CHECK(full["pools"][1]["tasks_done"] == 1);

  const std::string metrics = run.report.MetricsText(run.now);
  CHECK(Has(metrics, "fiber_workers_started_total 2"));
  CHECK(Has(metrics, "fiber_tasks_completed_total{pool=\"1\"} 1"));
  CHECK(Has(metrics, "fiber_tasks_queued{pool=\"2\"} 3"));
}

TEST_CASE("the run's elapsed time and each pool's run from the clock the report is given") {
  Run run;
  run.AddPool(1);
  run.now += std::chrono::seconds(90);
  json full = json::parse(run.report.RunStatusJson(run.now));
  CHECK(full["elapsed_seconds"].get<double>() == doctest::Approx(90));
  CHECK(full["pools"][0]["elapsed_seconds"].get<double>() == doctest::Approx(90));
  // A pool that went stops its clock where it ended; the run's goes on.
  run.Remove(1);
  run.now += std::chrono::seconds(30);
  full = json::parse(run.report.RunStatusJson(run.now));
  CHECK(full["elapsed_seconds"].get<double>() == doctest::Approx(120));
  CHECK(full["pools"][0]["elapsed_seconds"].get<double>() == doctest::Approx(90));
}

TEST_CASE("the master's CPU is measured from the samples of its ticks, and its memory read") {
  Run run;
  json full = json::parse(run.report.RunStatusJson(run.now));
  CHECK(full["master"]["cpu_percent"].get<double>() == 0);  // no sample yet
  CHECK(full["master"]["rss_bytes"].get<std::uint64_t>() > 0);
  run.report.Tick(run.now);
  // About 50 ms of CPU since the sample (the kernel counts it in 10 ms
  // ticks), over the 1 s the clock moved.
  const std::clock_t from = std::clock();
  while (std::clock() - from < CLOCKS_PER_SEC / 20) {
  }
  run.now += std::chrono::seconds(1);
  full = json::parse(run.report.RunStatusJson(run.now));
  CHECK(full["master"]["cpu_percent"].get<double>() >= 2);
  CHECK(full["master"]["cpu_seconds"].get<double>() > 0);
}

TEST_CASE("every pool gone is counted, and the last of them listed") {
  Run run;
  const std::size_t gone = fiber::runs::kMostPoolsInStatus + 1;
  for (std::size_t c = 1; c <= gone; ++c) {
    run.Submit(run.AddPool(static_cast<fiber::wire::Channel>(c)), 1);
    run.Remove(static_cast<fiber::wire::Channel>(c));
  }
  const json full = json::parse(run.report.RunStatusJson(run.now));
  CHECK(full["tasks_submitted"] == gone);
  CHECK(full["pools_total"] == fiber::runs::kMostPoolsInStatus);
  CHECK(full["pools"][0]["pool"] == 2);  // the first gone is no longer listed
  CHECK(json::parse(run.report.StatusJson())["pools"] == 0);
  CHECK(run.report.MetricsText(run.now).find("pool=\"1\"") == std::string::npos);
}
