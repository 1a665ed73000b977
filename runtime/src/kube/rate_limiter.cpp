#include "kube/rate_limiter.hpp"

#include <algorithm>

#include "os/mutex.hpp"

namespace fiber::kube {

RateLimiter::RateLimiter(RateLimit limit, std::function<Clock::time_point()> clock)
    : limit_(limit), clock_(std::move(clock)), tokens_(limit.burst), last_(clock_()) {}

RateLimiter::Clock::duration RateLimiter::Reserve() {
  const os::MutexLock lock(mutex_);
  const Clock::time_point now = clock_();
  const std::chrono::duration<double> elapsed = now - last_;
  last_ = now;
  tokens_ = std::min<double>(limit_.burst, tokens_ + elapsed.count() * limit_.qps) - 1;
  if (tokens_ >= 0) return Clock::duration::zero();
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(-tokens_ / limit_.qps));
}

}  // namespace fiber::kube
