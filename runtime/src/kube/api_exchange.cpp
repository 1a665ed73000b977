#include "kube/api_exchange.hpp"

#include <algorithm>
#include <chrono>
#include <random>
#include <thread>

#include "kube/throttle_wait.hpp"

namespace fiber::kube {

namespace {

bool Throttled(long status) { return status == 429 || status == 503; }

// Up to half of wait more, at random: requests turned away together (a
// burst the server's fairness refused) come back spread out, not together.
std::chrono::milliseconds Jitter(std::chrono::milliseconds wait) {
  thread_local std::minstd_rand random(std::random_device{}());
  return std::chrono::milliseconds(std::uniform_int_distribution<long>(0, wait.count() / 2)(random));
}

// Sleeps `wait`, in slices, unless *cancel is set first: false then.
bool WaitUnlessCancelled(std::chrono::steady_clock::duration wait, const std::atomic<bool>* cancel) {
  constexpr std::chrono::milliseconds kSlice{100};
  const auto until = std::chrono::steady_clock::now() + wait;
  for (;;) {
    if (cancel && cancel->load()) return false;
    const auto now = std::chrono::steady_clock::now();
    if (now >= until) return true;
    std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(kSlice, until - now));
  }
}

// Raises counts.most_tries to tries when the call ends, however it ends.
struct Tally {
  RequestCounts& counts;
  const int& tries;
  ~Tally() {
    int most = counts.most_tries.load();
    while (tries > most && !counts.most_tries.compare_exchange_weak(most, tries)) {
    }
  }
};

}  // namespace

ApiExchange ApiExchange::InNamespace(std::string namespace_name) const {
  ApiExchange other = *this;
  other.access_.namespace_name = std::move(namespace_name);
  return other;
}

bool ApiExchange::Send(const http::Request& request, const ApiRequestSubject& subject,
                       http::Response* response, ApiError* err, std::string* streamed_body) const {
  int throttled = 0;  // answers 429 or 503 so far
  bool renewed = false;
  int tries = 0;
  const Tally tally{*counts_, tries};
  for (;;) {
    http::Request authenticated = request;
    authenticated.headers.push_back("Accept: application/json");
    std::string why;
    if (!access_.Authenticate(&authenticated, &why)) {
      *err = {ApiErrorKind::kNoCredentials, 0,
              "no credentials for context \"" + access_.context + "\": " + why};
      return false;
    }
    if (streamed_body) streamed_body->clear();
    if (limiter_ && !WaitUnlessCancelled(limiter_->Reserve(), request.cancel)) return true;
    ++tries;
    ++counts_->sent;
    if (!http::Perform(authenticated, response, &why)) {
      *err = UnreachableError(subject, why);
      return false;
    }
    // An exec plugin's credential may have been revoked before it expired.
    if (response->status == 401 && !renewed && access_.CanRenew()) {
      renewed = true;
      access_.Renew();
      continue;
    }
    if (response->status / 100 == 2) return true;
    if (Throttled(response->status)) ++counts_->throttled;
    if (Throttled(response->status) && throttled < kMaxThrottledRetries) {
      const auto wait = ThrottleWait(response->header("Retry-After"), throttled, std::chrono::system_clock::now());
      if (!WaitUnlessCancelled(wait + Jitter(wait), request.cancel)) return true;
      ++throttled;
      continue;
    }
    *err = ErrorFromAnswer(subject, response->status,
                           streamed_body ? *streamed_body : response->body);
    if (Throttled(response->status))
      err->message += ", after " + std::to_string(throttled + 1) + " tries";
    return false;
  }
}

}  // namespace fiber::kube
