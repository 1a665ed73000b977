#include "kube/kubeconfig.hpp"

#include <yaml-cpp/yaml.h>

#include "kube/kubeconfig_context.hpp"
#include "kube/merged_kubeconfig.hpp"

namespace fiber::kube {

namespace {

std::string NoKubeconfig(const CredentialSearch& search, const MergedKubeconfig& merged) {
  std::string where;
  if (!merged.files.empty())
    where = merged.FileNames() + (merged.files.size() == 1 ? " defines" : " define") + " no context";
  else if (!search.kubeconfig_env.empty())
    where = "no file of KUBECONFIG (" + search.kubeconfig_env + ") exists";
  else
    where = (search.home.empty() ? std::string("~") : search.home) + "/.kube/config does not exist";
  return "no Kubernetes credentials: " + where +
         ", and this is not a pod (KUBERNETES_SERVICE_HOST is not set); name a kubeconfig with "
         "the kubeconfig setting (--kubeconfig) or KUBECONFIG";
}

bool Load(const CredentialSearch& search, ClusterAccess* access, std::string* err) {
  MergedKubeconfig merged;
  if (!ReadKubeconfigs(search, &merged, err)) return false;
  if (merged.Empty()) {
    if (search.kubeconfig.empty() && search.context.empty() && InClusterPossible(search.in_cluster))
      return LoadInCluster(search.in_cluster, search.namespace_name, access, err);
    *err = NoKubeconfig(search, merged);
    return false;
  }
  return LoadContextAccess(merged, search.context, search.namespace_name, access, err);
}

}  // namespace

CredentialSearch SearchFromEnvironment(const os::Getenv& getenv) {
  auto env = [&](const char* name) {
    const char* value = getenv(name);
    return std::string(value ? value : "");
  };
  CredentialSearch search;
  search.kubeconfig_env = env("KUBECONFIG");
  search.home = env("HOME");
  search.in_cluster.service_host = env("KUBERNETES_SERVICE_HOST");
  search.in_cluster.service_port = env("KUBERNETES_SERVICE_PORT");
  return search;
}

bool LoadClusterAccess(const CredentialSearch& search, ClusterAccess* access, std::string* err) {
  // Reading fields checks their types first; this is for what yaml-cpp
  // might still throw. Its message holds no text of the file.
  try {
    return Load(search, access, err);
  } catch (const YAML::Exception& e) {
    *err = "a kubeconfig is malformed (" + e.msg + ")";
    return false;
  }
}

}  // namespace fiber::kube
