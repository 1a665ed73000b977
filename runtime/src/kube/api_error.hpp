// What went wrong with a request to a Kubernetes API server, said so that a
// user can act on it: credentials refused (401), a permission missing (403,
// naming the verb, resource and namespace), a namespace that does not exist,
// an invalid manifest (the server's reason), a server that cannot be
// reached. Built from the API's Status object by kube/api_client.cpp.
#pragma once

#include <string>
#include <string_view>

namespace fiber::kube {

enum class ApiErrorKind {
  kNone,
  kUnreachable,    // no HTTP answer (curl's reason)
  kNoCredentials,  // none to send: an exec plugin failed, a token file is gone
  kUnauthorized,   // 401
  kForbidden,      // 403
  kNotFound,       // 404: the object (or the kind of object)
  kNamespaceNotFound,  // 404: its namespace
  kAlreadyExists,  // 409 AlreadyExists
  kConflict,       // 409 otherwise (a stale resourceVersion)
  kInvalid,        // 422
  kGone,           // 410: a watch's or list's resourceVersion is too old; relist
  kOther,
};

/// A failed request: what kind of failure, so that a caller can tell an
/// absent object or an expired watch from the rest, and one line for the
/// user. Never holds a credential.
struct ApiError {
  ApiErrorKind kind = ApiErrorKind::kNone;
  /// The HTTP status, 0 when none came.
  long status = 0;
  std::string message;
};

/// The request an error is about, in kubectl's words.
struct ApiRequestSubject {
  std::string verb;            // get, list, watch, create, patch, delete
  std::string resource;        // pods, namespaces, jobs.batch
  std::string namespace_name;  // empty: cluster-scoped
  std::string name;            // empty: the collection
  std::string server;
  std::string context;
};

/// The error an HTTP answer other than 2xx means; body is the answer's
/// (a Status object, usually).
ApiError ErrorFromAnswer(const ApiRequestSubject& subject, long http_status, std::string_view body);
/// The error of a request that got no answer: reason is http::Perform's.
ApiError UnreachableError(const ApiRequestSubject& subject, const std::string& reason);

}  // namespace fiber::kube
