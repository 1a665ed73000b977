// Elastic pools with real worker processes: they grow under a burst of
// tasks, shrink back when idle, and lose nothing on the way.
#include <doctest/doctest.h>

#include <fiber/fiber.hpp>

#include <chrono>
#include <numeric>
#include <thread>

#include "tasks.hpp"
#include "support/range.hpp"

namespace {


// Waits (bounded) until the pool has n workers; their number then.
std::size_t settle_at(fiber::Pool& pool, std::size_t n) {
  for (int i = 0; i < 1200 && pool.workers().size() != n; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  return pool.workers().size();
}

void check_squares(const std::vector<int>& values, int n) {
  REQUIRE(values.size() == static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) REQUIRE(values[i] == i * i);
}

}  // namespace

TEST_CASE("an elastic pool grows under a burst and shrinks back when idle, every result once") {
  fiber::PoolOptions options;
  options.min_processes = 1;
  options.max_processes = 4;
  options.idle_timeout = std::chrono::milliseconds(300);
  fiber::Pool pool(options);
  CHECK(pool.size() == 4);
  CHECK(pool.workers().size() == 1);

  auto burst = pool.map_async(slow_square, range(400), 1);
  CHECK(pool.workers().size() == 4);  // started as the tasks arrived
  check_squares(burst.get(), 400);
  CHECK(settle_at(pool, 1) == 1);  // back to its minimum

  // And again: it grows for the next burst.
  auto again = pool.map_async(slow_square, range(200), 1);
  CHECK(pool.workers().size() == 4);
  check_squares(again.get(), 200);
  pool.close();
  pool.join();
}

TEST_CASE("an elastic pool with no minimum starts its first worker when work arrives") {
  fiber::PoolOptions options;
  options.max_processes = 2;
  options.idle_timeout = std::chrono::milliseconds(300);
  fiber::Pool pool(options);
  CHECK(pool.workers().empty());
  CHECK(pool.apply(square, 7) == 49);
  CHECK(settle_at(pool, 0) == 0);
  CHECK(pool.apply(square, 8) == 64);
  pool.close();
  pool.join();
}

TEST_CASE("resize fixes an elastic pool at that size") {
  fiber::PoolOptions options;
  options.max_processes = 8;
  fiber::Pool pool(options);
  pool.resize(2);
  CHECK(pool.size() == 2);
  auto values = pool.map_async(slow_square, range(100), 1);
  CHECK(pool.workers().size() == 2);
  check_squares(values.get(), 100);
  pool.terminate();
  pool.join();
}

TEST_CASE("bad elastic bounds are refused with the options named") {
  fiber::PoolOptions options;
  options.min_processes = 3;
  options.max_processes = 2;
  CHECK_THROWS_WITH_AS(fiber::Pool{options}, doctest::Contains("min_processes <= max_processes"),
                       fiber::ConfigError);
  options.min_processes = 2;  // a minimum with no maximum is no elastic pool
  options.max_processes = 0;
  CHECK_THROWS_AS(fiber::Pool{options}, fiber::ConfigError);
  options.max_processes = 2;
  options.idle_timeout = std::chrono::milliseconds(0);
  CHECK_THROWS_WITH_AS(fiber::Pool{options}, doctest::Contains("idle_timeout"), fiber::ConfigError);
}
