// A pool's lost workers awaited until their backend reports their end, or
// for a while at most: ids and times in, with no worker or backend.
#include "master/awaited_exits.hpp"

#include <doctest/doctest.h>

using fiber::master::AwaitedExits;
using std::chrono::milliseconds;

TEST_CASE("a lost worker is awaited until its backend sees it end, and given up past the longest wait") {
  const auto t0 = fiber::master::Clock::time_point{};
  AwaitedExits awaited(milliseconds(1000));
  CHECK(awaited.empty());
  awaited.Await("w0", t0);
  awaited.Await("w1", t0 + milliseconds(500));
  awaited.Seen("w1");
  CHECK_FALSE(awaited.empty());
  CHECK(awaited.GiveUp(t0 + milliseconds(1000)).empty());  // not past it yet
  CHECK(awaited.GiveUp(t0 + milliseconds(1001)) == std::vector<std::string>{"w0"});
  CHECK(awaited.empty());
}
