// Kubernetes credentials found the way kubectl finds them: the search the
// environment describes, a pod's service account when there is no
// kubeconfig, and the error saying where fiber looked when there is neither.
#include <doctest/doctest.h>

#include <map>
#include <vector>

#include "encoding/base64.hpp"
#include "support/kubeconfigs.hpp"

using fiber::kube::ClusterAccess;
using fiber::kube::CredentialSearch;
using namespace fiber::testing;  // TempDir, the kubeconfigs and their loading

TEST_CASE("the environment says where kubectl would look, and chooses no file, context or namespace") {
  const std::map<std::string, std::string> env = {
      {"KUBECONFIG", "/a:/b"}, {"HOME", "/home/u"}, {"KUBERNETES_SERVICE_HOST", "10.0.0.1"},
      {"KUBERNETES_SERVICE_PORT", "443"}};
  const CredentialSearch search = fiber::kube::SearchFromEnvironment([&](const char* name) -> const char* {
    auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  });
  CHECK(search.kubeconfig.empty());
  CHECK(search.context.empty());
  CHECK(search.namespace_name.empty());
  CHECK(search.kubeconfig_env == "/a:/b");
  CHECK(search.home == "/home/u");
  CHECK(search.in_cluster.service_host == "10.0.0.1");
  CHECK(search.in_cluster.service_port == "443");
  CHECK(search.in_cluster.account_dir == fiber::kube::kServiceAccountDir);
}

TEST_CASE("in a pod without a kubeconfig, its service account is used") {
  TempDir dir;
  CredentialSearch search = InHome(dir);
  search.in_cluster.service_host = "10.96.0.1";
  search.in_cluster.service_port = "443";
  search.in_cluster.account_dir = dir.path() + "/account";
  dir.write("account/token", kToken);
  dir.write("account/ca.crt", "POD CA");
  dir.write("account/namespace", "workers\n");
  const ClusterAccess access = Load(search);
  CHECK(access.server == "https://10.96.0.1:443");
  CHECK(access.context == "in-cluster");
  CHECK(access.namespace_name == "workers");
  const fiber::http::Request request = Authenticated(access);
  CHECK(request.ca_pem == "POD CA");
  CHECK(Authorization(request) == "Bearer " + kToken);

  SUBCASE("the namespace setting wins") {
    search.namespace_name = "other";
    CHECK(Load(search).namespace_name == "other");
  }
  SUBCASE("a kubeconfig, when there is one, wins") {
    dir.write("home/.kube/config", Kubeconfig("https://dev.example:6443"));
    CHECK(Load(search).context == "dev");
  }
  SUBCASE("an IPv6 address goes in brackets") {
    search.in_cluster.service_host = "fd00::1";
    CHECK(Load(search).server == "https://[fd00::1]:443");
  }
  SUBCASE("without its CA, an error names the file") {
    std::remove((dir.path() + "/account/ca.crt").c_str());
    CHECK(LoadError(search) == "the pod's service account CA: cannot read " + dir.path() +
                                   "/account/ca.crt (No such file or directory)");
  }
}

TEST_CASE("with no kubeconfig and no pod, the error says where fiber looked") {
  TempDir dir;
  CredentialSearch search = InHome(dir);
  CHECK(LoadError(search) == "no Kubernetes credentials: " + dir.path() +
                                 "/home/.kube/config does not exist, and this is not a pod "
                                 "(KUBERNETES_SERVICE_HOST is not set); name a kubeconfig with the "
                                 "kubeconfig setting (--kubeconfig) or KUBECONFIG");
  search.kubeconfig_env = dir.path() + "/a:" + dir.path() + "/b";
  CHECK(LoadError(search).find("no file of KUBECONFIG (" + search.kubeconfig_env + ") exists") !=
        std::string::npos);
}

TEST_CASE("base64 of the -data fields round-trips, padded, and refuses what is not base64") {
  std::string out;
  for (const std::string& text :
       std::vector<std::string>{"", "a", "ab", "abc", "abcd", std::string("\x00\xff binary", 9)}) {
    REQUIRE(fiber::Base64Decode(fiber::Base64Encode(text), &out));
    CHECK(out == text);
  }
  CHECK(fiber::Base64Encode("abcd") == "YWJjZA==");
  REQUIRE(fiber::Base64Decode("YWJj\nZA==\n", &out));
  CHECK(out == "abcd");
  CHECK_FALSE(fiber::Base64Decode("YWJjZA=", &out));
  CHECK_FALSE(fiber::Base64Decode("YW=jZA==", &out));
  CHECK_FALSE(fiber::Base64Decode("YWJjZA==YQ==", &out));
  CHECK_FALSE(fiber::Base64Decode("YWJj*A==", &out));
}
