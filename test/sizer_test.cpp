// The pool's sizing decisions, case by case: counts and times in, a
// decision out, with no worker, socket or clock.
#include "master/sizer.hpp"

#include <doctest/doctest.h>

using fiber::master::Sizer;
using std::chrono::milliseconds;
using Time = std::chrono::steady_clock::time_point;

namespace {
Sizer Elastic(int min, int max) { return Sizer(Sizer::Elastic{min, max, milliseconds(1000)}); }
}  // namespace

TEST_CASE("a fixed pool wants its size and never grows under a backlog") {
  Sizer s(3);
  CHECK(s.target() == 3);
  CHECK_FALSE(s.Grow(/*pending=*/100, /*live=*/3, /*starting=*/0));
  CHECK(s.target() == 3);
}

TEST_CASE("a fixed pool retires no idle worker") {
  Sizer s(3);
  CHECK_FALSE(s.IdleCutoff(Time{} + milliseconds(5000)).has_value());
  CHECK(s.RetireIdle(/*live=*/3, /*idle=*/3) == 0);
  CHECK(s.target() == 3);
}

TEST_CASE("an elastic pool starts at its minimum") {
  CHECK(Elastic(2, 8).target() == 2);
  CHECK(Elastic(0, 8).target() == 0);
}

TEST_CASE("an elastic pool grows by the tasks that wait beyond its starting workers") {
  Sizer s = Elastic(1, 8);
  CHECK(s.Grow(/*pending=*/4, /*live=*/1, /*starting=*/0));
  CHECK(s.target() == 5);
  // Two of three waiting tasks are covered by workers still starting.
  Sizer t = Elastic(1, 8);
  CHECK(t.Grow(/*pending=*/3, /*live=*/3, /*starting=*/2));
  CHECK(t.target() == 4);
}

TEST_CASE("an elastic pool does not grow while its starting workers cover what waits") {
  Sizer s = Elastic(1, 8);
  CHECK_FALSE(s.Grow(/*pending=*/2, /*live=*/3, /*starting=*/2));
  CHECK(s.target() == 1);
  CHECK_FALSE(s.Grow(/*pending=*/0, /*live=*/1, /*starting=*/0));
}

TEST_CASE("an elastic pool grows no further than its maximum, and never shrinks by growing") {
  Sizer s = Elastic(1, 4);
  CHECK(s.Grow(/*pending=*/100, /*live=*/1, /*starting=*/0));
  CHECK(s.target() == 4);
  CHECK(s.Grow(/*pending=*/1, /*live=*/1, /*starting=*/0));  // still asks for starts
  CHECK(s.target() == 4);
}

TEST_CASE("workers start up to the target, only so many starting at once") {
  Sizer s(10);
  CHECK(s.ToStart(/*live=*/0, /*starting=*/0, /*max_starting=*/4) == 4);
  CHECK(s.ToStart(/*live=*/4, /*starting=*/4, /*max_starting=*/4) == 0);
  CHECK(s.ToStart(/*live=*/4, /*starting=*/3, /*max_starting=*/4) == 1);  // one connected
  CHECK(s.ToStart(/*live=*/9, /*starting=*/0, /*max_starting=*/4) == 1);
  CHECK(s.ToStart(/*live=*/10, /*starting=*/0, /*max_starting=*/4) == 0);
  CHECK(s.ToStart(/*live=*/12, /*starting=*/0, /*max_starting=*/4) == 0);  // over: none, not fewer
}

TEST_CASE("an elastic pool's idle workers are those idle since its idle timeout ago") {
  const Time now = Time{} + milliseconds(5000);
  CHECK(Elastic(1, 4).IdleCutoff(now) == Time{} + milliseconds(4000));
}

TEST_CASE("an elastic pool retires its idle workers down to its minimum, and wants what stays") {
  Sizer s = Elastic(1, 4);
  REQUIRE(s.Grow(/*pending=*/3, /*live=*/1, /*starting=*/0));
  REQUIRE(s.target() == 4);
  CHECK(s.RetireIdle(/*live=*/4, /*idle=*/2) == 2);
  CHECK(s.target() == 2);
  CHECK(s.RetireIdle(/*live=*/2, /*idle=*/2) == 1);  // the minimum stays
  CHECK(s.target() == 1);
  CHECK(s.RetireIdle(/*live=*/1, /*idle=*/1) == 0);
  CHECK(s.target() == 1);
}

TEST_CASE("an elastic pool with no idle worker wants no more than it has, nor less than its minimum") {
  Sizer s = Elastic(2, 8);
  REQUIRE(s.Grow(/*pending=*/6, /*live=*/2, /*starting=*/0));
  REQUIRE(s.target() == 8);
  CHECK(s.RetireIdle(/*live=*/5, /*idle=*/0) == 0);  // three never came
  CHECK(s.target() == 5);
  CHECK(s.RetireIdle(/*live=*/0, /*idle=*/0) == 0);
  CHECK(s.target() == 2);
}

TEST_CASE("resize makes any pool a fixed pool of that size") {
  Sizer s = Elastic(0, 8);
  s.Resize(2);
  CHECK(s.target() == 2);
  CHECK_FALSE(s.Grow(/*pending=*/20, /*live=*/2, /*starting=*/0));
  CHECK(s.target() == 2);
  CHECK_FALSE(s.IdleCutoff(Time{}).has_value());
}

TEST_CASE("a pool gives up after more than max(3, twice its target) failed starts in a row") {
  Sizer small(1);
  for (int i = 0; i < 3; ++i) small.StartFailed();
  CHECK_FALSE(small.GivesUp());
  small.StartFailed();
  CHECK(small.GivesUp());
  CHECK(small.start_failures() == 4);

  Sizer big(5);
  for (int i = 0; i < 10; ++i) big.StartFailed();
  CHECK_FALSE(big.GivesUp());
  big.StartFailed();
  CHECK(big.GivesUp());
}

TEST_CASE("a worker that starts ends the run of failed starts") {
  Sizer s(1);
  for (int i = 0; i < 3; ++i) s.StartFailed();
  s.Started();
  CHECK(s.start_failures() == 0);
  s.StartFailed();
  CHECK_FALSE(s.GivesUp());
}
