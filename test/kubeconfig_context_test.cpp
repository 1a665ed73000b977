// A kubeconfig context made into access: its cluster, its user's token
// file and exec credential plugins (scripts written by the tests) and their
// cache; and one clear error, naming the file and the field, for each
// malformed or missing context, cluster or user, never showing a secret.
#include <doctest/doctest.h>

#include "encoding/base64.hpp"
#include "support/kubeconfigs.hpp"

using fiber::kube::ClusterAccess;
using fiber::kube::CredentialSearch;
using namespace fiber::testing;  // TempDir, the kubeconfigs and their loading

TEST_CASE("a token file is read for each request, so a rotated token is used at once") {
  TempDir dir;
  dir.write("token", "first\n");
  CredentialSearch search = InHome(dir);
  search.kubeconfig = dir.write("kubeconfig", WithUser("- name: u\n  user:\n    token: " + kToken +
                                                           "\n    tokenFile: token\n", "u"));
  const ClusterAccess access = Load(search);
  CHECK(Authorization(Authenticated(access)) == "Bearer first");
  dir.write("token", "second");
  CHECK(Authorization(Authenticated(access)) == "Bearer second");
  std::remove((dir.path() + "/token").c_str());
  const std::string err = AuthenticateError(access);
  CHECK(err.find("cannot read " + dir.path() + "/token") != std::string::npos);
}

TEST_CASE("an exec plugin's token is sent, and kept until its expirationTimestamp") {
  TempDir dir;
  Executable(dir, "conf/bin/plugin", Plugin(R"({"token": "plugin-token", "expirationTimestamp": "2999-01-01T00:00:00Z"})"));
  CredentialSearch search = InHome(dir);
  // A command with a '/' is relative to the kubeconfig's directory.
  search.kubeconfig = dir.write("conf/kubeconfig", WithUser(ExecUser("bin/plugin"), "exec-user"));
  const ClusterAccess access = Load(search);
  CHECK(Authorization(Authenticated(access)) == "Bearer plugin-token");
  CHECK(Authorization(Authenticated(access)) == "Bearer plugin-token");
  CHECK(Lines(dir.path() + "/conf/bin/runs") == 1);
  CHECK(Slurp(dir.path() + "/conf/bin/runs") == "get-token --cluster dev\n");
  CHECK(Slurp(dir.path() + "/conf/bin/greeting") == "hello");
  const std::string info = Slurp(dir.path() + "/conf/bin/exec_info");
  CHECK(info.find("\"apiVersion\":\"client.authentication.k8s.io/v1\"") != std::string::npos);
  CHECK(info.find("\"interactive\":false") != std::string::npos);

  SUBCASE("a refused credential (401) is renewed: the plugin runs again") {
    access.Renew();
    CHECK(Authorization(Authenticated(access)) == "Bearer plugin-token");
    CHECK(Lines(dir.path() + "/conf/bin/runs") == 2);
  }
}

TEST_CASE("an expired exec credential runs the plugin again; one without expiry is kept") {
  TempDir dir;
  CredentialSearch search = InHome(dir);
  const std::string plugin = dir.path() + "/bin/plugin";
  search.kubeconfig = dir.write("kubeconfig", WithUser(ExecUser(plugin), "exec-user"));
  SUBCASE("expired") {
    Executable(dir, "bin/plugin", Plugin(R"({"token": "t", "expirationTimestamp": "2020-01-01T00:00:00.5+01:00"})"));
    const ClusterAccess access = Load(search);
    (void)Authenticated(access);
    (void)Authenticated(access);
    CHECK(Lines(dir.path() + "/bin/runs") == 2);
  }
  SUBCASE("no expiry") {
    Executable(dir, "bin/plugin", Plugin(R"({"token": "t"})"));
    const ClusterAccess access = Load(search);
    (void)Authenticated(access);
    (void)Authenticated(access);
    CHECK(Lines(dir.path() + "/bin/runs") == 1);
  }
}

TEST_CASE("an exec plugin's client certificate (v1beta1) goes into the TLS settings") {
  TempDir dir;
  const std::string version = "client.authentication.k8s.io/v1beta1";
  Executable(dir, "bin/plugin",
             Plugin(R"({"clientCertificateData": "PLUGIN CERT", "clientKeyData": "PLUGIN KEY"})", version));
  CredentialSearch search = InHome(dir);
  search.kubeconfig = dir.write("kubeconfig", WithUser(ExecUser(dir.path() + "/bin/plugin", version), "exec-user"));
  const fiber::http::Request request = Authenticated(Load(search));
  CHECK(request.client_cert_pem == "PLUGIN CERT");
  CHECK(request.client_key_pem == "PLUGIN KEY");
  CHECK(Authorization(request).empty());
}

TEST_CASE("an exec plugin that fails, is missing or answers wrongly gives one error naming it") {
  TempDir dir;
  CredentialSearch search = InHome(dir);
  const std::string plugin = dir.path() + "/bin/plugin";
  search.kubeconfig = dir.write("kubeconfig", WithUser(ExecUser(plugin), "exec-user"));
  const std::string owner = "(user \"exec-user\" in " + search.kubeconfig + ")";

  SUBCASE("failing: its status and the last line of its stderr") {
    Executable(dir, "bin/plugin",
               "#!/bin/sh\necho 'starting' >&2\necho 'error: not logged in; run the-plugin login' >&2\nexit 3\n");
    const std::string err = AuthenticateError(Load(search));
    CHECK(err == "the credential plugin " + plugin + " " + owner +
                     " failed with status 3: error: not logged in; run the-plugin login");
  }
  SUBCASE("missing: the installHint") {
    const std::string err = AuthenticateError(Load(search));
    CHECK(err == "the credential plugin " + plugin + " " + owner +
                     " is not installed (no such file). install it with: apt-get install the-plugin");
  }
  SUBCASE("missing from PATH") {
    search.kubeconfig = dir.write("kubeconfig", WithUser(ExecUser("fiber-no-such-plugin"), "exec-user"));
    const std::string err = AuthenticateError(Load(search));
    CHECK(err.find("the credential plugin fiber-no-such-plugin") == 0);
    CHECK(err.find("is not installed (no such file on PATH)") != std::string::npos);
  }
  SUBCASE("another apiVersion than asked for") {
    Executable(dir, "bin/plugin", Plugin(R"({"token": ")" + kToken + R"("})", "client.authentication.k8s.io/v1beta1"));
    const std::string err = AuthenticateError(Load(search));
    CHECK(err.find("answered with apiVersion \"client.authentication.k8s.io/v1beta1\"") != std::string::npos);
    CHECK(err.find(kToken) == std::string::npos);
  }
  SUBCASE("no credential in its answer") {
    Executable(dir, "bin/plugin", Plugin(R"({"clientKeyData": "secret-key"})"));
    const std::string err = AuthenticateError(Load(search));
    CHECK(err.find("gave clientKeyData without clientCertificateData") != std::string::npos);
    CHECK(err.find("secret-key") == std::string::npos);
  }
  SUBCASE("not JSON") {
    Executable(dir, "bin/plugin", "#!/bin/sh\necho " + kToken + "\n");
    const std::string err = AuthenticateError(Load(search));
    CHECK(err.find("printed no ExecCredential") != std::string::npos);
    CHECK(err.find(kToken) == std::string::npos);
  }
}

TEST_CASE("each malformed or missing context, cluster or user gives one error naming the file and the field") {
  TempDir dir;
  const auto error_for = ErrorOfKubeconfig(dir);
  const std::string f = dir.path() + "/kubeconfig";
  const std::string user = "- name: u\n  user:\n    token: " + kToken + "\n";

  CHECK(error_for("contexts:\n- name: dev\n  context: {cluster: c}\n") ==
        f + " sets no current-context; choose one with the context setting (--context) among: dev");
  CHECK(error_for(WithUser(user, "nobody")) ==
        f + ": context \"dev\" names user \"nobody\", which " + f + " does not define");
  CHECK(error_for("current-context: dev\ncontexts:\n- name: dev\n  context: {cluster: gone}\n") ==
        f + ": context \"dev\" names cluster \"gone\", which " + f + " does not define");
  CHECK(error_for("current-context: dev\ncontexts:\n- name: dev\n  context: {user: u}\n") ==
        f + ": context \"dev\" names no cluster");
  CHECK(error_for("current-context: dev\ncontexts:\n- name: dev\n  context: {cluster: c}\n"
                  "clusters:\n- name: c\n  cluster: {insecure-skip-tls-verify: true}\n") ==
        f + ": cluster \"c\" has no server");
  CHECK(error_for(WithUser("- name: u\n  user:\n    client-key-data: " + fiber::Base64Encode(kKey) + "\n", "u")) ==
        f + ": user \"u\" has a client key without a certificate");
  CHECK(error_for(WithUser("- name: u\n  user:\n    tokenFile: none\n", "u")) ==
        f + ": user \"u\": tokenFile " + dir.path() + "/none does not exist");
  CHECK(error_for(WithUser("- name: u\n  user:\n    exec: {apiVersion: client.authentication.k8s.io/v1}\n", "u")) ==
        f + ": user \"u\": exec has no command");
  CHECK(error_for(WithUser("- name: u\n  user:\n    exec: {command: x, apiVersion: client.authentication.k8s.io/v1alpha1}\n", "u")) ==
        f + ": user \"u\": exec.apiVersion is \"client.authentication.k8s.io/v1alpha1\"; "
            "client.authentication.k8s.io/v1 or v1beta1 is needed");
  CHECK(error_for(WithUser("- name: u\n  user:\n    auth-provider: {name: gcp}\n", "u")) ==
        f + ": user \"u\" sets auth-provider, which fiber does not support; use an exec credential "
            "plugin (such as gke-gcloud-auth-plugin or kubelogin)");
  CHECK(error_for(WithUser("- name: u\n  user:\n    username: admin\n    password: " + kToken + "\n", "u")) ==
        f + ": user \"u\" sets username, which fiber does not support");
}
