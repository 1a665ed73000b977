#include "kube/api_client.hpp"

#include "http/line_stream.hpp"

namespace fiber::kube {

namespace {

using json = nlohmann::json;

// A watch's answer kept for its error message, at most.
constexpr std::size_t kMaxErrorBody = 1 << 20;
// Objects a list asks for at once.
constexpr int kListPage = 500;

std::string Query(std::initializer_list<std::pair<const char*, std::string>> params) {
  std::string out;
  for (const auto& [key, value] : params) {
    if (value.empty()) continue;
    // Appended piece by piece: GCC 12 takes `"&" + std::string(...)` for
    // an overlapping copy (-Wrestrict) when optimizing.
    if (!out.empty()) out += '&';
    out.append(key).append("=").append(http::Escape(value));
  }
  return out;
}

json Parsed(const std::string& body) { return json::parse(body, nullptr, false); }

// A delete's body: propagation "Background" (owned objects go after it)
// and, when grace_seconds >= 0, that grace period.
std::string DeleteOptions(int grace_seconds) {
  json options = {{"kind", "DeleteOptions"}, {"apiVersion", "v1"}, {"propagationPolicy", "Background"}};
  if (grace_seconds >= 0) options["gracePeriodSeconds"] = grace_seconds;
  return options.dump();
}

std::string ResourceVersion(const json& object) {
  if (!object.is_object() || !object.contains("metadata")) return "";
  const json& metadata = object["metadata"];
  return metadata.is_object() && metadata.contains("resourceVersion") &&
                 metadata["resourceVersion"].is_string()
             ? metadata["resourceVersion"].get<std::string>()
             : "";
}

}  // namespace

ApiClient ApiClient::InNamespace(std::string namespace_name) const {
  ApiClient other = *this;
  other.exchange_ = exchange_.InNamespace(std::move(namespace_name));
  return other;
}

std::string ApiClient::Url(const ApiResource& resource, std::string_view name,
                           std::string_view query) const {
  std::string url = access().server +
                    (resource.api_version.find('/') == std::string::npos ? "/api/" : "/apis/") +
                    resource.api_version;
  if (resource.namespaced) url += "/namespaces/" + http::Escape(access().namespace_name);
  url += "/" + resource.plural;
  if (!name.empty()) url += "/" + http::Escape(name);
  if (!query.empty()) url += "?" + std::string(query);
  return url;
}

ApiRequestSubject ApiClient::Subject(const char* verb, const ApiResource& resource,
                                     std::string_view name) const {
  std::string what = resource.plural;
  // kubectl's way of naming a resource of a group: jobs.batch.
  if (const auto slash = resource.api_version.find('/'); slash != std::string::npos)
    what += "." + resource.api_version.substr(0, slash);
  return {verb,
          what,
          resource.namespaced ? access().namespace_name : "",
          std::string(name),
          access().server,
          access().context};
}

bool ApiClient::Call(const char* method, const std::string& url, const char* content_type,
                     std::string body, const ApiRequestSubject& subject, json* object,
                     ApiError* err) const {
  http::Request request;
  request.method = method;
  request.url = url;
  if (content_type) request.headers.push_back(std::string("Content-Type: ") + content_type);
  request.body = std::move(body);
  request.connect_timeout_ms = kApiConnectTimeoutMs;
  request.timeout_ms = kApiRequestTimeoutMs;
  http::Response response;
  if (!exchange_.Send(request, subject, &response, err)) return false;
  if (object) *object = Parsed(response.body);
  return true;
}

bool ApiClient::Get(const ApiResource& resource, std::string_view name, json* object,
                    ApiError* err) const {
  return Call("GET", Url(resource, name), nullptr, "", Subject("get", resource, name), object, err);
}

bool ApiClient::Create(const ApiResource& resource, const json& manifest, json* object,
                       ApiError* err) const {
  std::string name;
  if (manifest.contains("metadata") && manifest["metadata"].is_object())
    name = manifest["metadata"].value("name", "");
  return Call("POST", Url(resource, ""), "application/json", manifest.dump(),
              Subject("create", resource, name), object, err);
}

bool ApiClient::Patch(const ApiResource& resource, std::string_view name, const json& patch,
                      json* object, ApiError* err) const {
  return Call("PATCH", Url(resource, name), "application/merge-patch+json", patch.dump(),
              Subject("patch", resource, name), object, err);
}

bool ApiClient::Delete(const ApiResource& resource, std::string_view name, ApiError* err,
                       int grace_seconds) const {
  return Call("DELETE", Url(resource, name), "application/json", DeleteOptions(grace_seconds),
              Subject("delete", resource, name), nullptr, err);
}

bool ApiClient::DeleteCollection(const ApiResource& resource, std::string_view label_selector, ApiError* err,
                                 int grace_seconds) const {
  if (label_selector.empty()) {
    *err = {ApiErrorKind::kOther, 0, "refusing to delete every " + std::string(resource.plural) + ": no selector"};
    return false;
  }
  return Call("DELETE", Url(resource, "", Query({{"labelSelector", std::string(label_selector)}})),
              "application/json", DeleteOptions(grace_seconds), Subject("deletecollection", resource, ""), nullptr,
              err);
}

bool ApiClient::PodLog(std::string_view pod, std::string_view container,
                       const std::function<bool(std::string_view)>& on_chunk, ApiError* err,
                       bool timestamps) const {
  return ReadPodLog(pod, container, false, timestamps, on_chunk, nullptr, err);
}

bool ApiClient::FollowPodLog(std::string_view pod, std::string_view container,
                             const std::function<bool(std::string_view)>& on_chunk,
                             const std::atomic<bool>* cancel, ApiError* err, bool timestamps) const {
  return ReadPodLog(pod, container, true, timestamps, on_chunk, cancel, err);
}

bool ApiClient::ReadPodLog(std::string_view pod, std::string_view container, bool follow, bool timestamps,
                           const std::function<bool(std::string_view)>& on_chunk,
                           const std::atomic<bool>* cancel, ApiError* err) const {
  http::Request request;
  request.url = Url(kPods, pod, "") + "/log?" + (follow ? "follow=true&" : "") +
                (timestamps ? "timestamps=true&" : "") + "container=" + http::Escape(container);
  request.connect_timeout_ms = kApiConnectTimeoutMs;
  request.timeout_ms = follow ? 0 : kApiRequestTimeoutMs;  // followed: as long as the container runs
  request.cancel = cancel;
  http::Response response;
  std::string error_body;
  request.on_body = [&](std::string_view chunk) {
    if (response.status / 100 != 2) {
      if (error_body.size() < kMaxErrorBody) error_body.append(chunk);
      return true;
    }
    return on_chunk(chunk);
  };
  return exchange_.Send(request, Subject("get", kPodLogs, pod), &response, err, &error_body);
}

bool ApiClient::List(const ApiResource& resource, std::string_view label_selector, json* list,
                     ApiError* err) const {
  const ApiRequestSubject subject = Subject("list", resource, "");
  std::string next;
  *list = json();
  do {
    http::Request request;
    request.url = Url(resource, "",
                      Query({{"labelSelector", std::string(label_selector)},
                             {"limit", std::to_string(kListPage)},
                             {"continue", next}}));
    request.connect_timeout_ms = kApiConnectTimeoutMs;
    request.timeout_ms = kApiRequestTimeoutMs;
    http::Response response;
    if (!exchange_.Send(request, subject, &response, err)) return false;
    json page = Parsed(response.body);
    if (!page.is_object() || !page.contains("items") || !page["items"].is_array()) {
      *err = {ApiErrorKind::kOther, response.status,
              "the API server at " + access().server + " answered the list of " + subject.resource +
                  " with something that is not a list"};
      return false;
    }
    next.clear();
    if (page.contains("metadata") && page["metadata"].is_object())
      next = page["metadata"].value("continue", "");
    if (list->is_null()) {
      *list = std::move(page);
    } else {
      for (auto& item : page["items"]) (*list)["items"].push_back(std::move(item));
    }
  } while (!next.empty());
  (*list)["metadata"].erase("continue");
  return true;
}

bool ApiClient::Watch(const ApiResource& resource, const WatchOptions& options,
                      const std::function<bool(const WatchEvent&)>& on_event,
                      std::string* resource_version, ApiError* err) const {
  const ApiRequestSubject subject = Subject("watch", resource, "");
  *resource_version = options.resource_version;
  if (resource_version->empty()) {
    // The current objects from a list, then changes from its version: a
    // watch from no version would be a watch-list request (sendInitialEvents),
    // which API servers on an etcd without progress notifications refuse.
    json list;
    if (!List(resource, options.label_selector, &list, err)) return false;
    for (auto& item : list["items"])
      if (!on_event({"ADDED", std::move(item)})) {
        *resource_version = ResourceVersion(list);
        return true;
      }
    *resource_version = ResourceVersion(list);
  }
  http::Request request;
  request.url = Url(resource, "",
                    Query({{"watch", "1"},
                           {"allowWatchBookmarks", "true"},
                           {"timeoutSeconds", std::to_string(options.timeout_seconds)},
                           {"labelSelector", options.label_selector},
                           {"resourceVersion", *resource_version}}));
  request.connect_timeout_ms = kApiConnectTimeoutMs;
  request.timeout_ms = (options.timeout_seconds + 30) * 1000L;
  request.cancel = options.cancel;

  http::Response response;
  std::string error_body;
  http::LineStream lines;
  ApiError failure;  // set by an ERROR event or a line that is no event
  request.on_body = [&](std::string_view chunk) {
    if (response.status != 200) {
      if (error_body.size() < kMaxErrorBody) error_body.append(chunk);
      return true;
    }
    const bool go_on = lines.Feed(chunk, [&](std::string_view line) {
      if (line.find_first_not_of(" \r\t") == std::string_view::npos) return true;
      json event = json::parse(line, nullptr, false);
      if (!event.is_object() || !event.contains("type") || !event["type"].is_string() ||
          !event.contains("object")) {
        failure = {ApiErrorKind::kOther, 200,
                   "the watch of " + subject.resource + " at " + access().server +
                       " sent a line that is not an event"};
        return false;
      }
      WatchEvent e{event["type"].get<std::string>(), std::move(event["object"])};
      if (e.type == "ERROR") {
        const long code = e.object.is_object() ? e.object.value("code", 500L) : 500L;
        failure = ErrorFromAnswer(subject, code, e.object.dump());
        return false;
      }
      if (const std::string version = ResourceVersion(e.object); !version.empty())
        *resource_version = version;
      return e.type == "BOOKMARK" || on_event(e);
    });
    if (lines.overflowed())
      failure = {ApiErrorKind::kOther, 200,
                 "the watch of " + subject.resource + " at " + access().server + " sent an event of more than " +
                     std::to_string(http::kMaxAnswerBytes >> 20) + " MiB"};
    return go_on;
  };
  if (!exchange_.Send(request, subject, &response, err, &error_body)) return false;
  if (failure.kind != ApiErrorKind::kNone) {
    *err = failure;
    return false;
  }
  return true;
}

}  // namespace fiber::kube
