// Several workers per container (workers_per_job 4) on the real Docker
// engine of this machine: a pool of 10 is 3 containers (4 + 4 + 2), each
// worker with its own connection; a container killed mid-map loses its
// workers, each once, which are replaced, and every result arrives once;
// the pool resized down retires workers, and a container ends with its
// last. Every test checks by label that no container of its run is left.
#include <doctest/doctest.h>

#include <fiber/fiber.hpp>

#include <numeric>
#include <set>

#include "support/stderr_capture.hpp"
#include "support/test_containers.hpp"
#include "tasks.hpp"
#include "support/range.hpp"

using fiber::testing::ContainersRemoved;
using fiber::testing::eventually;
using fiber::testing::Occurrences;
using fiber::testing::TestEngine;
using fiber::testing::TestEngineName;

namespace {

const fiber::engine::Client& Engine() {
  static const fiber::engine::Client engine = TestEngine();
  return engine;
}

// This program's run, its pools' workers 4 to a container of an image of
// this test program: set before the run's first pool, which fixes them.
const std::string& PackedRun() {
  static const std::string run_id =
      fiber::testing::StartContainerRun(Engine(), [](fiber::config::Settings& s) { s.workers_per_job = 4; });
  return run_id;
}

fiber::PoolOptions Packed(int processes) {
  PackedRun();
  fiber::PoolOptions options;
  options.processes = processes;
  options.backend = TestEngineName();
  options.max_task_retries = 10;
  return options;
}

int Ready(fiber::Pool& pool) {
  int ready = 0;
  for (const auto& w : pool.workers()) ready += w.state == fiber::WorkerState::kReady;
  return ready;
}

int Running(const std::string& run_id) {
  int running = 0;
  for (const auto& c : fiber::testing::ContainersOf(Engine(), run_id)) running += c.state == "running";
  return running;
}


}  // namespace

TEST_CASE("a pool of 10 at 4 per container is 3 containers, each worker its own connection; results in order") {
  ContainersRemoved cleanup(Engine(), PackedRun());
  fiber::Pool pool(Packed(10));
  REQUIRE(eventually([&] { return Ready(pool) == 10; }, 120));
  CHECK(Running(PackedRun()) == 3);
  // Each a process of its own (pids repeat across containers, each its
  // own pid namespace).
  std::set<std::string> ids;
  for (const auto& w : pool.workers()) {
    CHECK(w.pid > 0);
    ids.insert(w.id);
  }
  CHECK(ids.size() == 10);
  const auto results = pool.map(square, range(300));
  REQUIRE(results.size() == 300);
  for (int i = 0; i < 300; ++i) CHECK(results[i] == i * i);
  pool.close();
  pool.join();
}

TEST_CASE("a container of 4 workers killed mid-map loses each of them once; they are replaced and every result arrives once") {
  ContainersRemoved cleanup(Engine(), PackedRun());
  fiber::testing::StderrCapture log;
  fiber::Pool pool(Packed(8));
  REQUIRE(eventually([&] { return Ready(pool) == 8; }, 120));
  REQUIRE(Running(PackedRun()) == 2);
  const int n = 3000;
  auto results = pool.imap_unordered(slow_square, range(n));
  std::multiset<int> seen;
  for (int i = 0; i < n; ++i) {
    auto v = results.next(std::chrono::seconds(120));
    REQUIRE(v.has_value());
    seen.insert(*v);
    if (i == 200) {
      fiber::testing::KillOneRunning(Engine(), PackedRun());
    }
  }
  std::multiset<int> expected;
  for (int i = 0; i < n; ++i) expected.insert(i * i);
  CHECK(seen == expected);
  CHECK(eventually([&] { return Ready(pool) == 8; }, 120));
  const std::string text = log.text();
  CHECK_MESSAGE(Occurrences(text, " lost: ") == 4, text);
}

TEST_CASE("a pool of 8 at 4 per container resized to 2 retires workers; a container ends with its last") {
  ContainersRemoved cleanup(Engine(), PackedRun());
  fiber::Pool pool(Packed(8));
  REQUIRE(eventually([&] { return Ready(pool) == 8; }, 120));
  REQUIRE(Running(PackedRun()) == 2);
  pool.resize(2);
  CHECK(eventually([&] { return pool.workers().size() == 2; }, 60));
  // The two left may share a container or not.
  CHECK(eventually([&] { return Running(PackedRun()) <= 2; }, 60));
  pool.resize(5);
  CHECK(eventually([&] { return Ready(pool) == 5; }, 120));
  CHECK(pool.map(square, range(50))[7] == 49);
  pool.close();
  pool.join();
  CHECK(eventually([&] { return Running(PackedRun()) == 0; }, 60));
}
