// One request to a Kubernetes API server as every call of kube::ApiClient
// sends it: authenticated with one cluster's access (a refused exec
// credential renewed once), through the rate limiter when there is one, and
// asked again when the server was busy (429, 503), after the wait it says.
// Each try is counted. Thread-safe: copies share the limiter and the counts;
// the access's exec credential cache locks.
#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <string>

#include "http/client.hpp"
#include "kube/api_error.hpp"
#include "kube/cluster_access.hpp"
#include "kube/rate_limiter.hpp"

namespace fiber::kube {

/// What one exchange and its copies asked of the API server, for a log line
/// and the scale tests: each try of a request counts as sent. Thread-safe.
struct RequestCounts {
  std::atomic<long> sent{0};
  std::atomic<long> throttled{0};  // answered 429 or 503
  std::atomic<int> most_tries{0};  // of one call: 1 when none was asked again
};

/// Time limits of a request that is not a watch.
inline constexpr long kApiConnectTimeoutMs = 5000;
inline constexpr long kApiRequestTimeoutMs = 30000;
/// A 429 or 503 means the server did not act: the request is sent again, at
/// most this many more times, after the wait kube/throttle_wait.hpp says.
inline constexpr int kMaxThrottledRetries = 8;

class ApiExchange {
 public:
  /// With a limit, every request of this exchange and of its copies passes
  /// one token bucket (kube/rate_limiter.hpp); without, none waits.
  explicit ApiExchange(ClusterAccess access, std::optional<RateLimit> limit = std::nullopt)
      : access_(std::move(access)),
        limiter_(limit ? std::make_shared<RateLimiter>(*limit) : nullptr) {}

  /// The same exchange (limiter and counts shared), for another namespace.
  ApiExchange InNamespace(std::string namespace_name) const;
  const ClusterAccess& access() const { return access_; }
  const RequestCounts& counts() const { return *counts_; }

  /// Sends request until it is answered 2xx (true), fails (false with *err
  /// naming subject), is throttled kMaxThrottledRetries + 1 times (false,
  /// "after N tries"), or request.cancel is set while it waits (true,
  /// nothing read, as http::Perform ends a cancelled exchange). A busy
  /// answer is waited out as its Retry-After says (kube/throttle_wait.hpp)
  /// with up to half as long again at random. With streamed_body, the
  /// request's on_body keeps an answer other than 2xx there, for the error.
  [[nodiscard]] bool Send(const http::Request& request, const ApiRequestSubject& subject,
                          http::Response* response, ApiError* err,
                          std::string* streamed_body = nullptr) const;

 private:
  ClusterAccess access_;
  std::shared_ptr<RateLimiter> limiter_;  // null: no limit
  std::shared_ptr<RequestCounts> counts_ = std::make_shared<RequestCounts>();
};

}  // namespace fiber::kube
