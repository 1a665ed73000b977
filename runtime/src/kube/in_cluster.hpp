// Credentials of a pod's service account, as client-go's rest.InClusterConfig
// reads them: the API server from KUBERNETES_SERVICE_HOST and _PORT, the
// token, CA and namespace from the account's mounted directory. For fiber
// workers and a master that run in a pod (kube/kubeconfig.hpp falls back to
// them when no kubeconfig exists).
#pragma once

#include <string>

#include "kube/cluster_access.hpp"

namespace fiber::kube {

inline constexpr const char* kServiceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount";

/// Where a pod's credentials are, passed in (the environment is read by
/// the caller; tests name another directory).
struct InClusterSearch {
  std::string service_host;  // $KUBERNETES_SERVICE_HOST
  std::string service_port;  // $KUBERNETES_SERVICE_PORT
  std::string account_dir = kServiceAccountDir;
};

/// Whether this looks like a pod: the service variables set and a token
/// mounted.
bool InClusterPossible(const InClusterSearch& search);

/// The pod's access: server, CA (ca.crt), token (token, read for each
/// request) and namespace (the namespace file; "default" without one),
/// unless namespace_override is set. *err names the missing piece.
[[nodiscard]] bool LoadInCluster(const InClusterSearch& search,
                                 const std::string& namespace_override, ClusterAccess* access,
                                 std::string* err);

}  // namespace fiber::kube
