// The kubeconfig files a credential search names, read and merged by
// kubectl's rules: the kubeconfig setting alone, else KUBECONFIG's files
// (the first to set a name or current-context wins), else ~/.kube/config.
// kube/kubeconfig.hpp reads them; kube/kubeconfig_context.hpp picks a
// context among them.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "kube/kubeconfig.hpp"
#include "kube/kubeconfig_entry.hpp"

namespace fiber::kube {

/// The files' clusters, users and contexts by name, and the
/// current-context, each as the first file to set it has it.
struct MergedKubeconfig {
  std::map<std::string, KubeconfigEntry> clusters, users, contexts;
  std::string current_context;
  /// The files read, in order.
  std::vector<std::string> files;

  /// Whether the files define nothing (or there are none).
  bool Empty() const {
    return clusters.empty() && users.empty() && contexts.empty() && current_context.empty();
  }
  /// For errors: the files, and the contexts' names ("none" without one),
  /// each joined with ", ".
  std::string FileNames() const;
  std::string ContextNames() const;
};

/// Reads and merges the files the search names; those of KUBECONFIG that
/// do not exist are skipped. *err names the file and what in it is
/// malformed, never its text.
[[nodiscard]] bool ReadKubeconfigs(const CredentialSearch& search, MergedKubeconfig* merged,
                                   std::string* err);

}  // namespace fiber::kube
