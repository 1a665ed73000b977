// How long kube::ApiClient waits before asking a busy API server again:
// Retry-After in seconds or as an HTTP date, capped; a backoff without one.
#include "kube/throttle_wait.hpp"

#include <doctest/doctest.h>

using fiber::kube::ThrottleWait;
using std::chrono::milliseconds;
using std::chrono::seconds;

namespace {

// 1994-11-06 08:49:37 UTC, RFC 9110's example date.
const auto kNow = std::chrono::system_clock::from_time_t(784111777);

}  // namespace

TEST_CASE("Retry-After in seconds is waited out as it says, capped at a minute") {
  CHECK(ThrottleWait("3", 0, kNow) == seconds(3));
  CHECK(ThrottleWait("0", 5, kNow) == seconds(0));
  CHECK(ThrottleWait("86400", 0, kNow) == fiber::kube::kMaxThrottleWait);
}

TEST_CASE("Retry-After as an HTTP date waits until that time, not at all once it is past") {
  CHECK(ThrottleWait("Sun, 06 Nov 1994 08:49:42 GMT", 0, kNow) == seconds(5));
  CHECK(ThrottleWait("Sun, 06 Nov 1994 08:49:37 GMT", 0, kNow) == seconds(0));
  CHECK(ThrottleWait("Sat, 05 Nov 1994 08:49:37 GMT", 0, kNow) == seconds(0));
  CHECK(ThrottleWait("Mon, 07 Nov 1994 08:49:37 GMT", 0, kNow) == fiber::kube::kMaxThrottleWait);
  CHECK(ThrottleWait("Sun, 06 Nov 1994 08:49:37 GMT", 0, kNow + milliseconds(300)) == seconds(0));
}

TEST_CASE("without a Retry-After it understands, the wait doubles from half a second up to a minute") {
  for (const char* header : {"", "soon", "-1", "Sun, 06 Nov 1994 08:49:42 CET", "Sun, 06 Foo 1994 08:49:42 GMT"}) {
    CAPTURE(header);
    CHECK(ThrottleWait(header, 0, kNow) == milliseconds(500));
    CHECK(ThrottleWait(header, 1, kNow) == milliseconds(1000));
    CHECK(ThrottleWait(header, 3, kNow) == milliseconds(4000));
    CHECK(ThrottleWait(header, 12, kNow) == fiber::kube::kMaxThrottleWait);
  }
}
