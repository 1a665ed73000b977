// A pool of a few hundred local workers on one master: every worker comes
// up (none refused at the handshake, none lost or replaced) and every
// result arrives once. FIBER_TEST_SCALE_WORKERS sets the count (300; the
// sanitized build uses fewer). Alone in its executable so that the run's
// worker ids are this pool's: w0 to w(N-1) when none was replaced.
#include <doctest/doctest.h>

#include <fiber/fiber.hpp>

#include <chrono>
#include <cstdlib>
#include <numeric>
#include <set>
#include <thread>

#include "support/stderr_capture.hpp"
#include "tasks.hpp"

TEST_CASE("a pool of a few hundred workers comes up whole, and every result arrives once") {
  const char* count = std::getenv("FIBER_TEST_SCALE_WORKERS");
  const int n = count ? std::atoi(count) : 300;
  REQUIRE(n > 0);
  fiber::testing::StderrCapture log;  // the master's and its workers' lines
  fiber::Pool pool(n);

  std::vector<fiber::WorkerInfo> workers;
  for (int i = 0; i < 12000; ++i) {  // bounded: 10 minutes
    workers = pool.workers();
    std::size_t ready = 0;
    for (const auto& w : workers) ready += w.state == fiber::WorkerState::kReady;
    if (ready == static_cast<std::size_t>(n)) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  std::set<std::string> ids, expected;
  for (const auto& w : workers) ids.insert(w.id);
  for (int i = 0; i < n; ++i) expected.insert("w" + std::to_string(i));
  CHECK(ids == expected);

  std::vector<int> items(4 * n);
  std::iota(items.begin(), items.end(), 0);
  const auto values = pool.map(square, items, 1);
  REQUIRE(values.size() == items.size());
  for (int i = 0; i < 4 * n; ++i) REQUIRE(values[i] == i * i);
  pool.close();
  pool.join();

  const std::string text = log.text();
  INFO(text.substr(0, 4000));
  CHECK(text.find("refused") == std::string::npos);
  CHECK(text.find(" lost") == std::string::npos);
  CHECK(text.find("cannot reach") == std::string::npos);
}
