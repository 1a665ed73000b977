#include "kube/in_cluster.hpp"

#include <fstream>

#include "http/header_text.hpp"

namespace fiber::kube {

bool InClusterPossible(const InClusterSearch& search) {
  return !search.service_host.empty() && !search.service_port.empty() &&
         std::ifstream(search.account_dir + "/token").good();
}

bool LoadInCluster(const InClusterSearch& search, const std::string& namespace_override,
                   ClusterAccess* access, std::string* err) {
  const std::string& dir = search.account_dir;
  if (search.service_host.empty() || search.service_port.empty()) {
    *err = "not in a pod: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not both set";
    return false;
  }
  ClusterAccess got;
  // An IPv6 address goes in brackets.
  const std::string host = search.service_host.find(':') == std::string::npos
                               ? search.service_host
                               : "[" + search.service_host + "]";
  got.server = "https://" + host + ":" + search.service_port;
  got.context = "in-cluster";
  got.source = dir;
  got.token_file = dir + "/token";
  if (!std::ifstream(got.token_file).good()) {
    *err = "the pod's service account token " + got.token_file +
           " cannot be read (is automountServiceAccountToken off?)";
    return false;
  }
  std::string why;
  if (!ReadCredentialFile(dir + "/ca.crt", &got.ca_pem, &why)) {
    *err = "the pod's service account CA: " + why;
    return false;
  }
  std::string namespace_name;
  if (ReadCredentialFile(dir + "/namespace", &namespace_name, &why))
    namespace_name = std::string(http::Trim(namespace_name));
  got.namespace_name = !namespace_override.empty() ? namespace_override
                       : !namespace_name.empty()   ? namespace_name
                                                   : "default";
  *access = std::move(got);
  return true;
}

}  // namespace fiber::kube
