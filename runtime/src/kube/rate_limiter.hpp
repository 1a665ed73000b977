// A token bucket every request of one kube::ApiClient passes, so that a run
// starting many pods at once asks the API server no faster than the
// kube_qps and kube_burst settings allow (kubectl's client-side limit).
#pragma once

#include <chrono>
#include <functional>

#include "os/mutex.hpp"

namespace fiber::kube {

/// The pace of a client's requests: `qps` a second on average, up to
/// `burst` at once after a quiet spell.
struct RateLimit {
  double qps = 1;
  int burst = 1;
};

class RateLimiter {
 public:
  using Clock = std::chrono::steady_clock;
  /// clock: where the time comes from (a test's own).
  explicit RateLimiter(RateLimit limit, std::function<Clock::time_point()> clock = Clock::now);

  /// Takes one request's token: how long the request waits before it is
  /// sent (0 while the bucket holds a token). Thread-safe; waits taken
  /// together queue one after another.
  Clock::duration Reserve();

 private:
  const RateLimit limit_;
  const std::function<Clock::time_point()> clock_;
  os::Mutex mutex_;
  double tokens_ FIBER_GUARDED_BY(mutex_);  // below 0: requests reserved ahead of the refill
  Clock::time_point last_ FIBER_GUARDED_BY(mutex_);
};

}  // namespace fiber::kube
