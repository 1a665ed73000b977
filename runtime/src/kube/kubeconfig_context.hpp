// A context of the merged kubeconfig files made into a ClusterAccess: the
// cluster it names (server, CA), the user (client certificate, token, token
// file or exec credential plugin) and the namespace. Settings fiber cannot
// honour are refused, not ignored. For kube/kubeconfig.hpp.
#pragma once

#include <string>

#include "kube/cluster_access.hpp"
#include "kube/merged_kubeconfig.hpp"

namespace fiber::kube {

/// The access of the context named context_name (empty: merged's
/// current-context), in namespace_name (empty: the context's, else
/// "default"). A context without a user gives anonymous access, as in
/// kubectl. *err names the file and the field, never a token or key.
[[nodiscard]] bool LoadContextAccess(const MergedKubeconfig& merged, const std::string& context_name,
                                     const std::string& namespace_name, ClusterAccess* access,
                                     std::string* err);

}  // namespace fiber::kube
