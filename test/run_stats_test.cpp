// The numbers a master keeps of a run as it runs (master/run_stats.hpp):
// each on a clock the test moves.
#include <doctest/doctest.h>

#include "master/run_stats.hpp"

using fiber::master::Clock;
using fiber::master::kTaskSecondsBuckets;
using fiber::master::PoolStats;
using fiber::master::RateMeter;
using fiber::master::TaskDurations;
using std::chrono::milliseconds;
using std::chrono::seconds;

namespace {
const Clock::time_point kStart = Clock::time_point() + std::chrono::hours(1);
}

TEST_CASE("a task's duration falls in the first bucket whose bound holds it, the slowest in the last") {
  TaskDurations d;
  d.Add(0.001);   // <= 0.005
  d.Add(0.3);     // <= 0.5
  d.Add(1.0);     // <= 1, a bound itself
  d.Add(7200.0);  // beyond every bound
  CHECK(d.buckets[0] == 1);
  CHECK(d.buckets[6] == 1);
  CHECK(d.buckets[7] == 1);
  CHECK(d.buckets[kTaskSecondsBuckets - 1] == 1);
  CHECK(d.count == 4);
  CHECK(d.sum_seconds == doctest::Approx(7201.301));
}

TEST_CASE("the rate now counts the last 5 seconds, and a pool younger than that over its life") {
  RateMeter rate;
  // 2 s old, 10 tasks: 5 a second, not 10 over 5 seconds.
  for (int i = 0; i < 10; ++i) rate.Add(kStart + milliseconds(200 * i), 1);
  CHECK(rate.PerSecond(kStart + seconds(2), kStart) == doctest::Approx(5.0));
  // 20 s on with nothing more done, the rate is 0.
  CHECK(rate.PerSecond(kStart + seconds(20), kStart) == 0.0);
  // 4 a second for 10 s: the window sees 4 a second.
  for (int i = 0; i < 40; ++i) rate.Add(kStart + seconds(30) + milliseconds(250 * i), 1);
  CHECK(rate.PerSecond(kStart + seconds(40), kStart) == doctest::Approx(4.0).epsilon(0.01));
}
