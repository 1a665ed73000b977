// How to reach one Kubernetes API server and whom to be there: what a
// kubeconfig context (kube/kubeconfig.hpp) or a pod's service account
// (kube/in_cluster.hpp) comes down to. kube/api_client.hpp prepares every
// request with it; it is the one place credentials go into a request.
#pragma once

#include <memory>
#include <string>

#include "http/client.hpp"
#include "kube/exec_credential.hpp"

namespace fiber::kube {

/// Copies share the exec plugin and its cached credential. Thread-safe
/// once built (it is not changed after loading).
struct ClusterAccess {
  /// "https://127.0.0.1:30443" (a path prefix kept), without a final '/'.
  std::string server;
  /// The context's name, or "in-cluster": errors name it.
  std::string context;
  /// Where it came from, for errors: a kubeconfig file or the service
  /// account's directory.
  std::string source;
  /// Where objects go unless a request names another namespace.
  std::string namespace_name = "default";

  /// Trusted CAs as PEM; empty: the system's.
  std::string ca_pem;
  bool insecure_skip_verify = false;

  /// The user's own identity, as the kubeconfig gave it.
  std::string client_cert_pem;
  std::string client_key_pem;
  std::string token;
  /// Read for each request, so a rotated token is used at once; wins over
  /// token.
  std::string token_file;
  /// Set: the plugin gives the token or certificate (kept until it expires).
  std::shared_ptr<ExecCredentialPlugin> exec;

  /// Sets request's TLS options and its Authorization header (the only place
  /// a token goes). *err names what is missing, never a secret.
  [[nodiscard]] bool Authenticate(http::Request* request, std::string* err) const;
  /// Whether a refused credential (401) may be renewed: an exec plugin's.
  bool CanRenew() const { return exec != nullptr; }
  /// Drops a cached exec credential, so the next request runs the plugin.
  void Renew() const;
};

/// Reads a file holding a credential, CA, kubeconfig or template whole; *err
/// names the file and the system's reason, never its content.
[[nodiscard]] bool ReadCredentialFile(const std::string& path, std::string* text, std::string* err);

}  // namespace fiber::kube
