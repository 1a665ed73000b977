// Kubernetes exec credential plugins (client.authentication.k8s.io v1 and
// v1beta1): the command a kubeconfig user names, such as
// gke-gcloud-auth-plugin or `aws eks get-token`, run the way kubectl runs
// it, its ExecCredential kept until it expires. Used by
// kube/cluster_access.hpp for every request of a user with an `exec` entry.
#pragma once

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "os/mutex.hpp"

namespace fiber::kube {

/// Who a request is made as at one moment: a bearer token, a client
/// certificate and key (PEM), or both.
struct ClientIdentity {
  std::string token;
  std::string client_cert_pem;
  std::string client_key_pem;
};

/// A kubeconfig user's `exec` entry, paths already resolved.
struct ExecConfig {
  std::string api_version;  // "client.authentication.k8s.io/v1" or ".../v1beta1"
  std::string command;
  std::vector<std::string> args;
  std::vector<std::pair<std::string, std::string>> env;
  std::string install_hint;
  /// Never, IfAvailable or Always; fiber never runs a plugin on a terminal.
  std::string interactive_mode;
  /// The cluster handed over in KUBERNETES_EXEC_INFO when provideClusterInfo.
  bool provide_cluster_info = false;
  std::string cluster_server;
  std::string cluster_ca_pem;
  bool cluster_insecure_skip_verify = false;
  /// For messages: `user "NAME" in FILE`.
  std::string owner;
};

/// How long a plugin may run before it is killed.
inline constexpr std::chrono::seconds kExecPluginTimeout{60};

/// One user's plugin and its cached credential. Thread-safe: one run at a
/// time; callers meanwhile wait for its answer.
class ExecCredentialPlugin {
 public:
  explicit ExecCredentialPlugin(ExecConfig config) : config_(std::move(config)) {}

  /// The cached credential, or the plugin's new one when there is none or
  /// it has expired (ExecCredential status.expirationTimestamp; none: kept
  /// until Forget). *err names the command, never the credential.
  [[nodiscard]] bool Get(ClientIdentity* identity, std::string* err);
  /// Drops the cached credential (the API server refused it: 401).
  void Forget();

  const ExecConfig& config() const { return config_; }

 private:
  [[nodiscard]] bool Run(ClientIdentity* identity, std::chrono::sys_seconds* expiry,
                         std::string* err) const;

  const ExecConfig config_;
  os::Mutex mu_;
  bool cached_ FIBER_GUARDED_BY(mu_) = false;
  ClientIdentity identity_ FIBER_GUARDED_BY(mu_);
  std::chrono::sys_seconds expiry_ FIBER_GUARDED_BY(mu_) = {};  // {}: none
};

/// An RFC 3339 time ("2026-11-23T07:00:00Z", "...:00.123+01:00") to the
/// second (seconds, so that year 2999 fits); false when text is not one.
[[nodiscard]] bool ParseRfc3339(const std::string& text, std::chrono::sys_seconds* at);

}  // namespace fiber::kube
