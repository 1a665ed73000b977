// Kubernetes credentials the way kubectl finds them: the kubeconfig setting
// (kubectl's --kubeconfig: that one file), else the files of KUBECONFIG
// merged by kubectl's rules, else ~/.kube/config; a context (the setting,
// else the files' current-context) naming a cluster and a user; and, when
// no kubeconfig exists at all, a pod's service account (kube/in_cluster.hpp).
// For the Kubernetes backend and the fiber command; kube/api_client.hpp
// takes what LoadClusterAccess gives. The files are read by
// kube/merged_kubeconfig.hpp, the context by kube/kubeconfig_context.hpp.
#pragma once

#include <functional>
#include <string>

#include "kube/cluster_access.hpp"
#include "kube/in_cluster.hpp"
#include "os/environment.hpp"

namespace fiber::kube {

/// Where to look and what the user chose, passed in so that nothing here
/// reads the environment.
struct CredentialSearch {
  /// A kubeconfig file to use alone (the kubeconfig setting).
  std::string kubeconfig;
  /// $KUBECONFIG: files separated by ':'; for each map key (a cluster,
  /// user or context name) the first file to set it wins, and the first
  /// file to set current-context names it. Files that do not exist are
  /// skipped, as kubectl skips them.
  std::string kubeconfig_env;
  /// $HOME, for ~/.kube/config.
  std::string home;
  /// The context to use; empty: the files' current-context.
  std::string context;
  /// The namespace to use; empty: the context's, else "default".
  std::string namespace_name;
  InClusterSearch in_cluster;
};

/// The variables SearchFromEnvironment reads, as kubectl and client-go do.
inline constexpr const char* kSearchVariables[] = {"KUBECONFIG", "HOME", "KUBERNETES_SERVICE_HOST",
                                                   "KUBERNETES_SERVICE_PORT"};

/// The search the environment describes (getenv: a variable's value, or
/// null when unset), with no kubeconfig file, context or namespace chosen:
/// the caller sets those.
CredentialSearch SearchFromEnvironment(const os::Getenv& getenv);

/// The access the search finds. One error, naming the file and the field
/// (or what is missing where), for anything malformed or absent; no token
/// or key ever appears in it.
[[nodiscard]] bool LoadClusterAccess(const CredentialSearch& search, ClusterAccess* access,
                                     std::string* err);

}  // namespace fiber::kube
