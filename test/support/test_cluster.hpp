// The cluster of test/cluster as tests find it: the values its cluster.env
// holds (test/cluster/up writes it; FIBER_CLUSTER_DIR moves it), and API
// clients for its accounts. For the tests of the suite "kubernetes".
#pragma once

#include <doctest/doctest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "backend/labels.hpp"
#include "kube/api_client.hpp"
#include "kube/kubeconfig.hpp"
#include "support/temp_dir.hpp"

namespace fiber::testing {

/// cluster.env's assignments; none when the file does not exist.
inline std::map<std::string, std::string> ReadClusterEnv() {
  const char* dir = std::getenv("FIBER_CLUSTER_DIR");
  std::ifstream in(std::string(dir && *dir ? dir : "/tmp/fiber-cluster") + "/cluster.env");
  std::map<std::string, std::string> env;
  for (std::string line; std::getline(in, line);)
    if (const auto eq = line.find('='); eq != std::string::npos)
      env[line.substr(0, eq)] = line.substr(eq + 1);
  return env;
}

/// cluster.env's value of key; fails the test when it has none.
inline std::string ClusterValue(const char* key) {
  static const std::map<std::string, std::string> env = ReadClusterEnv();
  const auto it = env.find(key);
  REQUIRE_MESSAGE(it != env.end(), "cluster.env has no " << key << " (start the cluster with test/cluster/up)");
  return it->second;
}

/// The cluster's nodes, by name.
inline std::vector<std::string> NodeNames() {
  std::istringstream in(ClusterValue("FIBER_CLUSTER_NODE_NAMES"));
  std::vector<std::string> names;
  for (std::string name; in >> name;) names.push_back(name);
  return names;
}
inline int NodeCount() { return static_cast<int>(NodeNames().size()); }

/// A client with a kubeconfig's credentials, in its context's namespace.
inline kube::ApiClient ClusterClient(const std::string& kubeconfig) {
  kube::CredentialSearch search;
  search.kubeconfig = kubeconfig;
  kube::ClusterAccess access;
  std::string err;
  REQUIRE_MESSAGE(kube::LoadClusterAccess(search, &access, &err), err);
  return kube::ApiClient(access);
}

/// The admin account's client, in the test namespace.
inline const kube::ApiClient& NamespaceAdmin() {
  static const kube::ApiClient admin =
      ClusterClient(ClusterValue("FIBER_CLUSTER_ADMIN_KUBECONFIG")).InNamespace(ClusterValue("FIBER_CLUSTER_NAMESPACE"));
  return admin;
}

/// A run's objects of a kind in the test namespace, as the API server
/// lists them by label (the admin account's view).
inline nlohmann::json RunObjects(const kube::ApiResource& resource, const std::string& run_id) {
  nlohmann::json list;
  kube::ApiError err;
  REQUIRE_MESSAGE(NamespaceAdmin().List(resource, backend::LabelIs(backend::kRunLabel, run_id), &list, &err),
                  err.message);
  return list["items"];
}

/// A kubeconfig for the cluster, in dir, whose user is an exec credential
/// plugin: plugin_script, written beside it.
inline std::string ExecKubeconfig(const TempDir& dir, const std::string& plugin_script) {
  const std::string plugin = dir.write("plugin", plugin_script);
  ::chmod(plugin.c_str(), 0755);
  return dir.write("kubeconfig",
                   "apiVersion: v1\nkind: Config\ncurrent-context: exec\nclusters:\n- name: test\n"
                   "  cluster:\n    server: " + ClusterValue("FIBER_CLUSTER_API") +
                       "\n    certificate-authority: " + ClusterValue("FIBER_CLUSTER_CA") +
                       "\ncontexts:\n- name: exec\n  context: {cluster: test, user: exec, namespace: " +
                       ClusterValue("FIBER_CLUSTER_NAMESPACE") +
                       "}\nusers:\n- name: exec\n  user:\n    exec:\n"
                       "      apiVersion: client.authentication.k8s.io/v1\n"
                       "      command: ./plugin\n      interactiveMode: Never\n"
                       "      provideClusterInfo: true\n");
}

/// A plugin script printing the token of a kubeconfig's user.
inline std::string TokenPlugin(const std::string& kubeconfig) {
  return "#!/bin/sh\n"
         "token=$(sed -n 's/^ *token: *//p' " + kubeconfig + ")\n"
         "printf '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\","
         "\"status\":{\"token\":\"%s\"}}' \"$token\"\n";
}

}  // namespace fiber::testing
