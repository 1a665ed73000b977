// A small client of the Kubernetes API: get, create, merge-patch, delete,
// list and watch objects, over http::Perform with one cluster's access
// (kube/cluster_access.hpp). For the Kubernetes backend, the fiber command
// and tests against a real API server. A server that is busy (429, 503) is
// asked again after the wait it says. Thread-safe: calls share nothing but
// the access, whose exec credential cache locks, and the rate limiter, which
// locks too.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "kube/api_error.hpp"
#include "kube/cluster_access.hpp"
#include "kube/rate_limiter.hpp"

namespace fiber::kube {

/// A kind of object the API serves: its group/version, its plural name in
/// URLs and whether it lives in a namespace.
struct ApiResource {
  std::string api_version;  // "v1", "batch/v1"
  std::string plural;       // "pods"
  bool namespaced = true;
};

inline const ApiResource kPods{"v1", "pods"};
inline const ApiResource kSecrets{"v1", "secrets"};
inline const ApiResource kConfigMaps{"v1", "configmaps"};
inline const ApiResource kServiceAccounts{"v1", "serviceaccounts"};
inline const ApiResource kEvents{"v1", "events"};
/// The log subresource of pods, as errors name it ("pods/log").
inline const ApiResource kPodLogs{"v1", "pods/log"};
inline const ApiResource kNamespaces{"v1", "namespaces", false};

/// One event of a watch: ADDED, MODIFIED or DELETED, and the object.
/// (Bookmarks only move the watch's resourceVersion on.)
struct WatchEvent {
  std::string type;
  nlohmann::json object;
};

struct WatchOptions {
  std::string label_selector;
  /// Where to start: a list's metadata.resourceVersion (events after it),
  /// or "" for the current objects first (listed), as ADDED events.
  std::string resource_version;
  /// The server ends the watch after this long (its timeoutSeconds); the
  /// exchange itself gives up 30 s later.
  int timeout_seconds = 300;
  /// Set true by another thread: the watch ends within about a second
  /// (Watch returns true).
  const std::atomic<bool>* cancel = nullptr;
};

/// What one client and its copies asked of the API server, for a log line
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

class ApiClient {
 public:
  /// With a limit, every request of this client and of its copies passes
  /// one token bucket (kube/rate_limiter.hpp); without, none waits.
  explicit ApiClient(ClusterAccess access, std::optional<RateLimit> limit = std::nullopt)
      : access_(std::move(access)),
        limiter_(limit ? std::make_shared<RateLimiter>(*limit) : nullptr) {}

  /// The same client, for objects in another namespace (its requests in
  /// the same bucket).
  ApiClient InNamespace(std::string namespace_name) const;
  const std::string& namespace_name() const { return access_.namespace_name; }
  const ClusterAccess& access() const { return access_; }
  /// This client's requests and its copies'.
  const RequestCounts& counts() const { return *counts_; }

  /// Each returns false with *err (its kind and one line for the user) on
  /// any failure; the object the server answered with goes to *object.
  [[nodiscard]] bool Get(const ApiResource& resource, std::string_view name,
                         nlohmann::json* object, ApiError* err) const;
  [[nodiscard]] bool Create(const ApiResource& resource, const nlohmann::json& manifest,
                            nlohmann::json* object, ApiError* err) const;
  /// A JSON merge patch (RFC 7386).
  [[nodiscard]] bool Patch(const ApiResource& resource, std::string_view name,
                           const nlohmann::json& patch, nlohmann::json* object,
                           ApiError* err) const;
  /// Deletes with propagation "Background" (owned objects go after it) and,
  /// when grace_seconds >= 0, that grace period.
  [[nodiscard]] bool Delete(const ApiResource& resource, std::string_view name, ApiError* err,
                            int grace_seconds = -1) const;
  /// Deletes every object matching the selector (not "": never all) with
  /// one request (the verb "deletecollection"), as Delete does each.
  [[nodiscard]] bool DeleteCollection(const ApiResource& resource, std::string_view label_selector,
                                      ApiError* err, int grace_seconds = -1) const;
  /// Every object matching the selector ("" for all), read page by page;
  /// *list is the API's list: items and metadata.resourceVersion.
  [[nodiscard]] bool List(const ApiResource& resource, std::string_view label_selector,
                          nlohmann::json* list, ApiError* err) const;
  /// Hands each event to on_event until it returns false or the server ends
  /// the watch: both are true. *resource_version is the last one seen, to
  /// watch on from. A resourceVersion too old gives false with kind kGone:
  /// the caller lists again and watches from the list's.
  [[nodiscard]] bool Watch(const ApiResource& resource, const WatchOptions& options,
                           const std::function<bool(const WatchEvent&)>& on_event,
                           std::string* resource_version, ApiError* err) const;

  /// A pod's container's output (the pods/log subresource), handed over
  /// to on_chunk as it is read (a long log is never held whole): so far;
  /// followed, as it comes until the container ends, on_chunk returns false
  /// or *cancel is set. With timestamps, each line starts with when the
  /// container wrote it (RFC 3339 in UTC) and a space, as kubectl logs
  /// --timestamps shows it.
  [[nodiscard]] bool PodLog(std::string_view pod, std::string_view container,
                            const std::function<bool(std::string_view)>& on_chunk, ApiError* err,
                            bool timestamps = false) const;
  [[nodiscard]] bool FollowPodLog(std::string_view pod, std::string_view container,
                                  const std::function<bool(std::string_view)>& on_chunk,
                                  const std::atomic<bool>* cancel, ApiError* err,
                                  bool timestamps = false) const;

  /// The URL of a collection (name empty) or an object, query appended.
  std::string Url(const ApiResource& resource, std::string_view name,
                  std::string_view query = "") const;

 private:
  // One exchange, authenticated; a refused exec credential is renewed once;
  // an answer 429 or 503 (the server did not act) is waited out as its
  // Retry-After says (kube/throttle_wait.hpp), with up to half as long
  // again at random, and the request sent again, up to 8 times or until
  // request.cancel is set. Each try is counted (counts()).
  // With streamed_body, on_body keeps an answer other than 2xx there.
  [[nodiscard]] bool Exchange(const http::Request& request, const ApiRequestSubject& subject,
                              http::Response* response, ApiError* err,
                              std::string* streamed_body = nullptr) const;
  // One request that is not a watch; *object (if asked) gets the answer.
  [[nodiscard]] bool Call(const char* method, const std::string& url, const char* content_type,
                          std::string body, const ApiRequestSubject& subject,
                          nlohmann::json* object, ApiError* err) const;
  // PodLog and FollowPodLog.
  [[nodiscard]] bool ReadPodLog(std::string_view pod, std::string_view container, bool follow,
                                bool timestamps, const std::function<bool(std::string_view)>& on_chunk,
                                const std::atomic<bool>* cancel, ApiError* err) const;
  ApiRequestSubject Subject(const char* verb, const ApiResource& resource,
                            std::string_view name) const;

  ClusterAccess access_;
  std::shared_ptr<RateLimiter> limiter_;  // null: no limit
  std::shared_ptr<RequestCounts> counts_ = std::make_shared<RequestCounts>();
};

}  // namespace fiber::kube
