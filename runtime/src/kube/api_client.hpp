// A small client of the Kubernetes API: get, create, merge-patch, delete,
// list and watch objects and read pods' logs, each request sent as
// kube/api_exchange.hpp says (authenticated, rate-limited, asked again when
// the server is busy). For the Kubernetes backend, the fiber command and
// tests against a real API server. Thread-safe as its exchange.
#pragma once

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "kube/api_error.hpp"
#include "kube/api_exchange.hpp"
#include "kube/api_resource.hpp"

namespace fiber::kube {

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

class ApiClient {
 public:
  /// With a limit, every request of this client and of its copies passes
  /// one token bucket (kube/rate_limiter.hpp); without, none waits.
  explicit ApiClient(ClusterAccess access, std::optional<RateLimit> limit = std::nullopt)
      : exchange_(std::move(access), limit) {}

  /// The same client, for objects in another namespace (its requests in
  /// the same bucket).
  ApiClient InNamespace(std::string namespace_name) const;
  const std::string& namespace_name() const { return access().namespace_name; }
  const ClusterAccess& access() const { return exchange_.access(); }
  /// This client's requests and its copies'.
  const RequestCounts& counts() const { return exchange_.counts(); }

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

  ApiExchange exchange_;
};

}  // namespace fiber::kube
