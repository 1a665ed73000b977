// What a user reads when the Kubernetes API server says no: the Status
// objects a real API server sends (401, 403 from RBAC and from admission,
// 404 for a namespace and for an object, 409, 410, 422, 500) and no answer
// at all, each turned into one line naming what failed and where.
#include <doctest/doctest.h>

#include "kube/api_error.hpp"

using fiber::kube::ApiErrorKind;
using fiber::kube::ApiRequestSubject;
using fiber::kube::ErrorFromAnswer;

namespace {

ApiRequestSubject Creating(const std::string& resource, const std::string& name) {
  return {"create", resource, "fiber-test", name, "https://127.0.0.1:36443", "restricted"};
}

std::string Status(int code, const std::string& reason, const std::string& message,
                   const std::string& details = "{}") {
  return R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":")" +
         message + R"(","reason":")" + reason + R"(","details":)" + details +
         R"(,"code":)" + std::to_string(code) + "}";
}

}  // namespace

TEST_CASE("401: the server and the context whose credentials were refused") {
  const auto e = ErrorFromAnswer(Creating("pods", "w1"), 401, Status(401, "Unauthorized", "Unauthorized"));
  CHECK(e.kind == ApiErrorKind::kUnauthorized);
  CHECK(e.message == "the API server at https://127.0.0.1:36443 rejected the credentials of "
                     "context \"restricted\" (401 Unauthorized)");
}

TEST_CASE("403 from RBAC: the verb, resource and namespace the account may not use") {
  const std::string said =
      "configmaps is forbidden: User \\\"system:serviceaccount:fiber-test:fiber-restricted\\\" "
      "cannot create resource \\\"configmaps\\\" in API group \\\"\\\" in the namespace \\\"fiber-test\\\"";
  const auto e = ErrorFromAnswer(Creating("configmaps", "c"), 403,
                                 Status(403, "Forbidden", said, R"({"kind":"configmaps"})"));
  CHECK(e.kind == ApiErrorKind::kForbidden);
  CHECK(e.message.find("cannot create configmaps \"c\" in namespace \"fiber-test\" as context "
                       "\"restricted\": the account lacks permission (configmaps is forbidden: User "
                       "\"system:serviceaccount:fiber-test:fiber-restricted\" cannot create") == 0);
}

TEST_CASE("403 from admission (a quota): the server's reason, not a missing permission") {
  const auto e = ErrorFromAnswer(
      Creating("pods", "w1"), 403,
      Status(403, "Forbidden", "pods \\\"w1\\\" is forbidden: exceeded quota: q, requested: cpu=2"));
  CHECK(e.kind == ApiErrorKind::kForbidden);
  CHECK(e.message == "the API server forbids to create pods \"w1\" in namespace \"fiber-test\": "
                     "pods \"w1\" is forbidden: exceeded quota: q, requested: cpu=2");
}

TEST_CASE("404 for the namespace names it; 404 for an object names the object") {
  const auto ns = ErrorFromAnswer(
      Creating("pods", "w1"), 404,
      Status(404, "NotFound", "namespaces \\\"fiber-test\\\" not found",
             R"({"name":"fiber-test","kind":"namespaces"})"));
  CHECK(ns.kind == ApiErrorKind::kNamespaceNotFound);
  CHECK(ns.message == "namespace \"fiber-test\" does not exist on the API server at "
                      "https://127.0.0.1:36443 (context \"restricted\")");
  ApiRequestSubject get = Creating("pods", "w1");
  get.verb = "get";
  const auto pod = ErrorFromAnswer(get, 404,
                                   Status(404, "NotFound", "pods \\\"w1\\\" not found",
                                          R"({"name":"w1","kind":"pods"})"));
  CHECK(pod.kind == ApiErrorKind::kNotFound);
  CHECK(pod.message == "pods \"w1\" in namespace \"fiber-test\" not found");
}

TEST_CASE("422: the manifest is invalid, with the server's reason") {
  const auto e = ErrorFromAnswer(
      Creating("pods", "bad"), 422,
      Status(422, "Invalid", "Pod \\\"bad\\\" is invalid: spec.containers: Required value"));
  CHECK(e.kind == ApiErrorKind::kInvalid);
  CHECK(e.message == "the API server refused the pods \"bad\" in namespace \"fiber-test\" as "
                     "invalid: Pod \"bad\" is invalid: spec.containers: Required value");
}

TEST_CASE("409 and 410 are told apart: exists, conflict, expired resourceVersion") {
  CHECK(ErrorFromAnswer(Creating("pods", "w1"), 409, Status(409, "AlreadyExists", "pods \\\"w1\\\" already exists")).kind ==
        ApiErrorKind::kAlreadyExists);
  CHECK(ErrorFromAnswer(Creating("pods", "w1"), 409, Status(409, "Conflict", "the object has been modified")).kind ==
        ApiErrorKind::kConflict);
  ApiRequestSubject watch = Creating("pods", "");
  watch.verb = "watch";
  const auto gone = ErrorFromAnswer(watch, 410, Status(410, "Expired", "too old resource version: 1 (2)"));
  CHECK(gone.kind == ApiErrorKind::kGone);
  CHECK(gone.message == "the watch of pods in namespace \"fiber-test\" asked for a resourceVersion "
                        "the API server no longer has (410 Gone): too old resource version: 1 (2)");
}

TEST_CASE("an answer that is no Status (a proxy's page) is quoted, one line, cut short") {
  const auto e = ErrorFromAnswer(Creating("pods", "w1"), 502,
                                 "<html>Bad Gateway</html>\n" + std::string(300, 'x'));
  CHECK(e.kind == ApiErrorKind::kOther);
  CHECK(e.message == "cannot create pods \"w1\" in namespace \"fiber-test\": the API server at "
                     "https://127.0.0.1:36443 (context \"restricted\") answered 502 (<html>Bad "
                     "Gateway</html>)");
}

TEST_CASE("no answer: the server's URL and curl's reason") {
  const auto e = fiber::kube::UnreachableError(
      Creating("pods", "w1"),
      "https://127.0.0.1:36443/api/v1/namespaces/fiber-test/pods: Failed to connect to 127.0.0.1 "
      "port 36443 after 0 ms: Couldn't connect to server");
  CHECK(e.kind == ApiErrorKind::kUnreachable);
  CHECK(e.message == "cannot reach the API server at https://127.0.0.1:36443 (context "
                     "\"restricted\"): Failed to connect to 127.0.0.1 port 36443 after 0 ms: "
                     "Couldn't connect to server");
}
