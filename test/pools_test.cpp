// master/pools: the pool each worker belongs to, found by its id whatever
// pool it is of, and no longer once its pool let it go or is gone.
#include "master/pools.hpp"

#include <doctest/doctest.h>

#include "support/scripted_pools.hpp"

using fiber::master::Clock;
using fiber::testing::ScriptedPools;

namespace {
const Clock::time_point kNow = Clock::time_point() + std::chrono::hours(1);
}  // namespace

TEST_CASE("worker ids are the run's, and each is found in the pool that asked for it") {
  ScriptedPools run;
  auto& a = run.Add(1, kNow, 2);
  auto& b = run.Add(2, kNow, 1);
  CHECK(run.pools.workers_started() == 3);
  CHECK(run.pools.Of("w0") == &a);
  CHECK(run.pools.Of("w1") == &a);
  CHECK(run.pools.Of("w2") == &b);
  CHECK(run.pools.Of("w3") == nullptr);
  CHECK(run.pools.Of("stranger") == nullptr);
  // Connected only once it has said HELLO.
  CHECK(run.pools.ConnectedOf("w2") == nullptr);
  REQUIRE(b.OnHello("w2", fiber::wire::Hello{1}, kNow));
  CHECK(run.pools.ConnectedOf("w2") == &b);
  CHECK(run.pools.Find(2) == &b);
  CHECK(run.pools.Find(3) == nullptr);
}

TEST_CASE("a worker its pool let go, or of a pool gone, belongs to none") {
  ScriptedPools run;
  auto& a = run.Add(1, kNow, 1);
  run.Add(2, kNow, 1);
  a.LoseWorker("w0", "it sent garbage", kNow);
  CHECK(run.pools.Of("w0") == nullptr);
  CHECK(run.pools.Remove(2) != nullptr);
  CHECK(run.pools.Of("w1") == nullptr);
  CHECK(run.pools.Remove(2) == nullptr);
  CHECK(run.pools.size() == 1);
}

TEST_CASE("pruning the index forgets only workers gone, however many came and went") {
  ScriptedPools run;
  for (fiber::wire::Channel c = 1; c <= 200; ++c) {
    run.Add(c, kNow, 1);
    if (c % 2 == 0) (void)run.pools.Remove(c);
    run.pools.Prune();
  }
  CHECK(run.pools.workers_started() == 200);
  for (int n = 0; n < 200; ++n) {
    const std::string id = "w" + std::to_string(n);
    // Pool c started worker c - 1; the odd pools are still there.
    CHECK((run.pools.Of(id) != nullptr) == (n % 2 == 0));
  }
}
