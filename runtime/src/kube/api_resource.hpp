// The kinds of object fiber asks the Kubernetes API about, as the API names
// them in its URLs. For kube::ApiClient's calls and its callers.
#pragma once

#include <string>

namespace fiber::kube {

/// A kind of object the API serves: its group/version, its plural name in
/// URLs and whether it lives in a namespace.
struct ApiResource {
  std::string api_version;  // "v1", "batch/v1"
  std::string plural;       // "pods"
  bool namespaced = true;
};

inline const ApiResource kPods{"v1", "pods"};
inline const ApiResource kSecrets{"v1", "secrets"};
inline const ApiResource kConfigMaps{"v1", "configmaps"};
inline const ApiResource kServiceAccounts{"v1", "serviceaccounts"};
inline const ApiResource kEvents{"v1", "events"};
/// The log subresource of pods, as errors name it ("pods/log").
inline const ApiResource kPodLogs{"v1", "pods/log"};
inline const ApiResource kNamespaces{"v1", "namespaces", false};

}  // namespace fiber::kube
