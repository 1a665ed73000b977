// The token bucket the Kubernetes API client's requests pass, on a clock
// the test moves: a burst goes at once, the requests after it wait their
// turn at the rate, a quiet spell refills the bucket up to the burst only,
// and waits taken together queue one after another.
#include <doctest/doctest.h>

#include "kube/rate_limiter.hpp"

using fiber::kube::RateLimiter;
using std::chrono::milliseconds;

namespace {

struct FakeClock {
  RateLimiter::Clock::time_point now{};
  void advance(milliseconds d) { now += d; }
};

long Ms(RateLimiter::Clock::duration d) { return std::chrono::round<milliseconds>(d).count(); }

}  // namespace

TEST_CASE("a burst goes at once; the requests after it wait their turn at the rate") {
  FakeClock clock;
  RateLimiter limiter({10, 3}, [&] { return clock.now; });
  for (int i = 0; i < 3; ++i) CHECK(Ms(limiter.Reserve()) == 0);
  CHECK(Ms(limiter.Reserve()) == 100);
  CHECK(Ms(limiter.Reserve()) == 200);  // queued behind the one before
  clock.advance(milliseconds(200));
  CHECK(Ms(limiter.Reserve()) == 100);
}

TEST_CASE("a quiet spell refills the bucket up to the burst, no further") {
  FakeClock clock;
  RateLimiter limiter({10, 2}, [&] { return clock.now; });
  CHECK(Ms(limiter.Reserve()) == 0);
  CHECK(Ms(limiter.Reserve()) == 0);
  clock.advance(milliseconds(10000));
  CHECK(Ms(limiter.Reserve()) == 0);
  CHECK(Ms(limiter.Reserve()) == 0);
  CHECK(Ms(limiter.Reserve()) == 100);
}
