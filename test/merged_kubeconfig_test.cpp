// Which kubeconfig files are read, as kubectl reads them: the kubeconfig
// setting alone, else KUBECONFIG's files merged (the first to set a name or
// current-context wins), else ~/.kube/config; and one clear error, naming
// the file, for one that is not YAML or whose lists are malformed.
#include <doctest/doctest.h>

#include "support/kubeconfigs.hpp"

using fiber::kube::ClusterAccess;
using fiber::kube::CredentialSearch;
using namespace fiber::testing;  // TempDir, the kubeconfigs and their loading

TEST_CASE("~/.kube/config gives the current context's server, user and namespace") {
  TempDir dir;
  dir.write("home/.kube/config", Kubeconfig("https://dev.example:6443/"));
  const ClusterAccess access = Load(InHome(dir));
  CHECK(access.server == "https://dev.example:6443");
  CHECK(access.context == "dev");
  CHECK(access.namespace_name == "dev-ns");
  CHECK(access.source == dir.path() + "/home/.kube/config");
  CHECK(Authorization(Authenticated(access)) == "Bearer " + kToken);
}

TEST_CASE("KUBECONFIG's files merge: the first to set a name or current-context wins") {
  TempDir dir;
  // a sets no current-context and defines dev-cluster; b defines it again
  // (ignored), names the current context and defines its user.
  const std::string a = dir.write("a.yaml",
                                  "clusters:\n- name: dev-cluster\n  cluster:\n"
                                  "    server: https://from-a:6443\n");
  const std::string b = dir.write("b.yaml", Kubeconfig("https://from-b:6443", "dev"));
  const std::string c = dir.write("c.yaml",
                                  "current-context: other\ncontexts:\n- name: other\n  context:\n"
                                  "    cluster: dev-cluster\n");
  CredentialSearch search = InHome(dir);
  dir.write("home/.kube/config", Kubeconfig("https://from-home:6443", "dev"));
  search.kubeconfig_env = a + ":" + dir.path() + "/missing.yaml::" + b + ":" + c;
  const ClusterAccess access = Load(search);
  CHECK(access.server == "https://from-a:6443");
  CHECK(access.context == "dev");
  CHECK(access.namespace_name == "dev-ns");
  CHECK(Authorization(Authenticated(access)) == "Bearer " + kToken);

  SUBCASE("the context setting picks another context; without a namespace it is default") {
    search.context = "other";
    const ClusterAccess other = Load(search);
    CHECK(other.context == "other");
    CHECK(other.server == "https://from-a:6443");
    CHECK(other.namespace_name == "default");
    CHECK(Authorization(Authenticated(other)).empty());  // no user: anonymous
  }
  SUBCASE("the namespace setting wins over the context's") {
    search.namespace_name = "mine";
    CHECK(Load(search).namespace_name == "mine");
  }
  SUBCASE("an unknown context is named, with the contexts there") {
    search.context = "prod";
    const std::string err = LoadError(search);
    CHECK(err.find("context \"prod\" is not in " + a) != std::string::npos);
    CHECK(err.find("dev, other") != std::string::npos);
  }
}

TEST_CASE("the kubeconfig setting is used alone, and must exist") {
  TempDir dir;
  CredentialSearch search = InHome(dir);
  dir.write("home/.kube/config", Kubeconfig("https://from-home:6443"));
  search.kubeconfig_env = dir.write("env.yaml", Kubeconfig("https://from-env:6443"));
  search.kubeconfig = dir.write("alone.yaml", Kubeconfig("https://alone:6443"));
  CHECK(Load(search).server == "https://alone:6443");
  search.kubeconfig = dir.path() + "/nowhere.yaml";
  CHECK(LoadError(search).find("cannot read " + dir.path() + "/nowhere.yaml") != std::string::npos);
}

TEST_CASE("a kubeconfig that is not YAML or whose lists are malformed gives one error naming the file") {
  TempDir dir;
  const auto error_for = ErrorOfKubeconfig(dir);
  const std::string f = dir.path() + "/kubeconfig";

  CHECK(error_for("clusters: [\n  {name: " + kToken) ==
        f + " is not valid YAML (line 2, column 1: end of map flow not found)");
  CHECK(error_for("- " + kToken + "\n") == f + " is not a kubeconfig: its top level is not a map");
  CHECK(error_for("clusters: " + kToken + "\n") == f + ": clusters is not a list");
  CHECK(error_for("users:\n- user: {token: " + kToken + "}\n") == f + ": users[0] has no name");
  CHECK(error_for("users:\n- " + kToken + "\n") == f + ": users[0] is not a map");
}
