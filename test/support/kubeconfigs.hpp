// Kubeconfig files for the tests of Kubernetes credentials (kube/kubeconfig.hpp
// and its parts), written by each test in a TempDir, with the secrets no error
// may show; loading them, and the request a client would then send; exec
// credential plugins as scripts that record their runs.
#pragma once

#include <doctest/doctest.h>
#include <sys/stat.h>

#include <fstream>
#include <functional>
#include <sstream>
#include <string>

#include "kube/kubeconfig.hpp"
#include "support/temp_dir.hpp"

namespace fiber::testing {

// Secrets every kubeconfig of these tests holds; no error may show them.
inline const std::string kToken = "s3cret-token-of-the-user";
inline const std::string kKey = "-----BEGIN PRIVATE KEY-----\nsecret-key\n-----END PRIVATE KEY-----\n";

/// A kubeconfig whose current-context is current, with a context dev:
/// cluster dev-cluster at server, user dev-user (kToken, and extra_user
/// after it), namespace dev-ns.
inline std::string Kubeconfig(const std::string& server, const std::string& current = "dev",
                              const std::string& extra_user = "") {
  return "apiVersion: v1\nkind: Config\ncurrent-context: " + current +
         "\nclusters:\n- name: dev-cluster\n  cluster:\n    server: " + server +
         "\ncontexts:\n- name: dev\n  context:\n    cluster: dev-cluster\n    user: dev-user\n"
         "    namespace: dev-ns\n"
         "users:\n- name: dev-user\n  user:\n    token: " + kToken + "\n" + extra_user;
}

/// A search with dir/home as $HOME, and no pod.
inline kube::CredentialSearch InHome(const TempDir& dir) {
  kube::CredentialSearch search;
  search.home = dir.path() + "/home";
  search.in_cluster.account_dir = dir.path() + "/no-account";
  return search;
}

/// The access the search finds, which must be found.
inline kube::ClusterAccess Load(const kube::CredentialSearch& search) {
  kube::ClusterAccess access;
  std::string err;
  REQUIRE_MESSAGE(kube::LoadClusterAccess(search, &access, &err), err);
  return access;
}

/// The error of a search that must fail, showing no secret.
inline std::string LoadError(const kube::CredentialSearch& search) {
  kube::ClusterAccess access;
  std::string err;
  CHECK_FALSE(kube::LoadClusterAccess(search, &access, &err));
  CHECK(err.find(kToken) == std::string::npos);
  CHECK(err.find("secret-key") == std::string::npos);
  return err;
}

/// For tests of malformed kubeconfigs: the error of dir/kubeconfig, used
/// alone (the kubeconfig setting), once it holds text.
inline std::function<std::string(const std::string&)> ErrorOfKubeconfig(const TempDir& dir) {
  kube::CredentialSearch search = InHome(dir);
  search.kubeconfig = dir.path() + "/kubeconfig";
  return [&dir, search](const std::string& text) {
    dir.write("kubeconfig", text);
    return LoadError(search);
  };
}

/// The request a client would send with this access.
inline http::Request Authenticated(const kube::ClusterAccess& access) {
  http::Request request;
  std::string err;
  REQUIRE_MESSAGE(access.Authenticate(&request, &err), err);
  return request;
}

/// The Authorization header's value, or "".
inline std::string Authorization(const http::Request& request) {
  for (const auto& h : request.headers)
    if (h.rfind("Authorization: ", 0) == 0) return h.substr(15);
  return "";
}

/// Why the access cannot authenticate a request.
inline std::string AuthenticateError(const kube::ClusterAccess& access) {
  http::Request request;
  std::string err;
  CHECK_FALSE(access.Authenticate(&request, &err));
  return err;
}

/// dir/relative holding text, executable.
inline std::string Executable(const TempDir& dir, const std::string& relative, const std::string& text) {
  const std::string path = dir.write(relative, text);
  ::chmod(path.c_str(), 0755);
  return path;
}

/// The number of lines of the file at path.
inline int Lines(const std::string& path) {
  std::ifstream in(path);
  int n = 0;
  for (std::string line; std::getline(in, line);) ++n;
  return n;
}

/// The text of the file at path.
inline std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

/// An exec plugin that records each run (its arguments) beside itself and
/// prints the credential given.
inline std::string Plugin(const std::string& status_json,
                          const std::string& version = "client.authentication.k8s.io/v1") {
  return "#!/bin/sh\n"
         "here=$(dirname \"$0\")\n"
         "echo \"$*\" >> \"$here/runs\"\n"
         "printf '%s' \"$KUBERNETES_EXEC_INFO\" > \"$here/exec_info\"\n"
         "printf '%s' \"$PLUGIN_GREETING\" > \"$here/greeting\"\n"
         "cat <<'EOF'\n"
         "{\"apiVersion\": \"" + version + "\", \"kind\": \"ExecCredential\", \"status\": " +
         status_json + "}\nEOF\n";
}

/// A user exec-user whose exec plugin is command, with its arguments,
/// environment and install hint.
inline std::string ExecUser(const std::string& command, const std::string& version = "client.authentication.k8s.io/v1") {
  return "- name: exec-user\n  user:\n    exec:\n      apiVersion: " + version +
         "\n      command: " + command +
         "\n      args: [get-token, --cluster, dev]\n      env:\n      - name: PLUGIN_GREETING\n"
         "        value: hello\n      interactiveMode: Never\n"
         "      installHint: \"install it with: apt-get install the-plugin\"\n";
}

/// A kubeconfig whose current context uses user.
inline std::string WithUser(const std::string& user_entry, const std::string& user_name) {
  return "current-context: dev\nclusters:\n- name: dev-cluster\n  cluster:\n"
         "    server: https://dev.example:6443\ncontexts:\n- name: dev\n  context:\n"
         "    cluster: dev-cluster\n    user: " + user_name + "\nusers:\n" + user_entry;
}

}  // namespace fiber::testing
