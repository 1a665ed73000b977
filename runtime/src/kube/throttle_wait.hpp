// How long to wait before asking a busy API server (429, 503) again: the
// wait its Retry-After header says, in seconds or as an HTTP date (RFC 9110
// allows both; API Priority and Fairness sends seconds, proxies in front of
// an API server may send a date), capped; without one, a backoff doubling
// from half a second. Used by kube::ApiClient. Pure: the time is given.
#pragma once

#include <chrono>
#include <string>

namespace fiber::kube {

/// The longest wait one answer may ask for.
inline constexpr std::chrono::milliseconds kMaxThrottleWait{60000};
/// The first wait when the answer says none; each retry doubles it.
inline constexpr std::chrono::milliseconds kFirstBackoff{500};

/// The wait before retry number `retry` (0 for the first) of an answer
/// whose Retry-After header is retry_after ("" when absent), at `now`. A
/// date already past asks for no wait; a value that is neither seconds nor
/// an IMF-fixdate ("Sun, 06 Nov 1994 08:49:37 GMT") counts as absent.
std::chrono::milliseconds ThrottleWait(const std::string& retry_after, int retry,
                                       std::chrono::system_clock::time_point now);

}  // namespace fiber::kube
