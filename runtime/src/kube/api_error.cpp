#include "kube/api_error.hpp"

#include <nlohmann/json.hpp>

namespace fiber::kube {

namespace {

using json = nlohmann::json;

std::string Quoted(const std::string& s) { return "\"" + s + "\""; }

// `pods "w1" in namespace "fiber-test"`, `pods in namespace "x"`, `namespaces "x"`.
std::string What(const ApiRequestSubject& s) {
  std::string out = s.resource;
  if (!s.name.empty()) out.append(" ").append(Quoted(s.name));
  if (!s.namespace_name.empty()) out.append(" in namespace ").append(Quoted(s.namespace_name));
  return out;
}

std::string Server(const ApiRequestSubject& s) {
  return "the API server at " + s.server + " (context " + Quoted(s.context) + ")";
}

// The answer's own words: Status.message, else the body's first line.
std::string Said(const json& status, std::string_view body) {
  if (status.is_object() && status.contains("message") && status["message"].is_string())
    return status["message"].get<std::string>();
  std::string line(body.substr(0, body.find('\n')));
  if (line.size() > 200) line = line.substr(0, 200) + "...";
  return line.empty() ? "no reason given" : line;
}

std::string Field(const json& object, const char* key) {
  return object.is_object() && object.contains(key) && object[key].is_string()
             ? object[key].get<std::string>()
             : "";
}

}  // namespace

ApiError ErrorFromAnswer(const ApiRequestSubject& s, long http_status, std::string_view body) {
  const json status = json::parse(body, nullptr, false);
  const std::string said = Said(status, body);
  const std::string reason = Field(status, "reason");
  const json details = status.is_object() && status.contains("details") ? status["details"] : json();
  ApiError e;
  e.status = http_status;
  switch (http_status) {
    case 401:
      e.kind = ApiErrorKind::kUnauthorized;
      e.message = "the API server at " + s.server + " rejected the credentials of context " +
                  Quoted(s.context) + " (401 Unauthorized)";
      return e;
    case 403:
      e.kind = ApiErrorKind::kForbidden;
      // RBAC says `User "..." cannot create resource "pods" ...`; an
      // admission plugin (a quota, a policy) says something else.
      if (said.find(" cannot ") != std::string::npos)
        e.message = "cannot " + s.verb + " " + What(s) + " as context " + Quoted(s.context) +
                    ": the account lacks permission (" + said + ")";
      else
        e.message = "the API server forbids to " + s.verb + " " + What(s) + ": " + said;
      return e;
    case 404:
      if (Field(details, "kind") == "namespaces" && !s.namespace_name.empty() &&
          Field(details, "name") == s.namespace_name) {
        e.kind = ApiErrorKind::kNamespaceNotFound;
        e.message = "namespace " + Quoted(s.namespace_name) + " does not exist on " + Server(s);
      } else if (!s.name.empty() && reason == "NotFound") {
        e.kind = ApiErrorKind::kNotFound;
        e.message = What(s) + " not found";
      } else {
        e.kind = ApiErrorKind::kNotFound;
        e.message = "cannot " + s.verb + " " + What(s) + ": " + Server(s) + " answered 404 (" +
                    said + ")";
      }
      return e;
    case 409:
      e.kind = reason == "AlreadyExists" ? ApiErrorKind::kAlreadyExists : ApiErrorKind::kConflict;
      e.message = "cannot " + s.verb + " " + What(s) + ": " + said;
      return e;
    case 410:
      e.kind = ApiErrorKind::kGone;
      e.message = "the " + s.verb + " of " + What(s) +
                  " asked for a resourceVersion the API server no longer has (410 Gone): " + said;
      return e;
    case 422:
      e.kind = ApiErrorKind::kInvalid;
      e.message = "the API server refused the " + What(s) + " as invalid: " + said;
      return e;
    default:
      e.kind = ApiErrorKind::kOther;
      e.message = "cannot " + s.verb + " " + What(s) + ": " + Server(s) + " answered " +
                  std::to_string(http_status) + " (" + said + ")";
      return e;
  }
}

ApiError UnreachableError(const ApiRequestSubject& s, const std::string& reason) {
  ApiError e;
  e.kind = ApiErrorKind::kUnreachable;
  // Perform's reason starts with the request's URL; the server says enough.
  std::string why = reason;
  if (const auto colon = why.find(": "); colon != std::string::npos && why.rfind(s.server, 0) == 0)
    why = why.substr(colon + 2);
  e.message = "cannot reach the API server at " + s.server + " (context " + Quoted(s.context) +
              "): " + why;
  return e;
}

}  // namespace fiber::kube
