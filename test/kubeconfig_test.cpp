// Kubernetes credentials found the way kubectl finds them: KUBECONFIG's
// files merged (the first to set a name or current-context wins), the
// kubeconfig, context and namespace settings, relative paths, -data fields,
// token files, exec credential plugins (scripts written by the tests) and
// their cache, a pod's service account; and one clear error, naming the
// file and the field, for each malformed or missing piece, never showing a
// secret.
#include <doctest/doctest.h>

#include <sys/stat.h>

#include <fstream>
#include <map>
#include <sstream>

#include "encoding/base64.hpp"
#include "kube/kubeconfig.hpp"
#include "support/temp_dir.hpp"

using fiber::kube::ClusterAccess;
using fiber::kube::CredentialSearch;
using fiber::testing::TempDir;

namespace {

// Secrets every kubeconfig of these tests holds; no error may show them.
const std::string kToken = "s3cret-token-of-the-user";
const std::string kKey = "-----BEGIN PRIVATE KEY-----\nsecret-key\n-----END PRIVATE KEY-----\n";

std::string Kubeconfig(const std::string& server, const std::string& current = "dev",
                       const std::string& extra_user = "") {
  return "apiVersion: v1\nkind: Config\ncurrent-context: " + current +
         "\nclusters:\n- name: dev-cluster\n  cluster:\n    server: " + server +
         "\ncontexts:\n- name: dev\n  context:\n    cluster: dev-cluster\n    user: dev-user\n"
         "    namespace: dev-ns\n"
         "users:\n- name: dev-user\n  user:\n    token: " + kToken + "\n" + extra_user;
}

CredentialSearch InHome(const TempDir& dir) {
  CredentialSearch search;
  search.home = dir.path() + "/home";
  search.in_cluster.account_dir = dir.path() + "/no-account";
  return search;
}

ClusterAccess Load(const CredentialSearch& search) {
  ClusterAccess access;
  std::string err;
  REQUIRE_MESSAGE(fiber::kube::LoadClusterAccess(search, &access, &err), err);
  return access;
}

std::string LoadError(const CredentialSearch& search) {
  ClusterAccess access;
  std::string err;
  CHECK_FALSE(fiber::kube::LoadClusterAccess(search, &access, &err));
  CHECK(err.find(kToken) == std::string::npos);
  CHECK(err.find("secret-key") == std::string::npos);
  return err;
}

// The request a client would send with this access.
fiber::http::Request Authenticated(const ClusterAccess& access) {
  fiber::http::Request request;
  std::string err;
  REQUIRE_MESSAGE(access.Authenticate(&request, &err), err);
  return request;
}

std::string Authorization(const fiber::http::Request& request) {
  for (const auto& h : request.headers)
    if (h.rfind("Authorization: ", 0) == 0) return h.substr(15);
  return "";
}

std::string AuthenticateError(const ClusterAccess& access) {
  fiber::http::Request request;
  std::string err;
  CHECK_FALSE(access.Authenticate(&request, &err));
  return err;
}

std::string Executable(const TempDir& dir, const std::string& relative, const std::string& text) {
  const std::string path = dir.write(relative, text);
  ::chmod(path.c_str(), 0755);
  return path;
}

int Lines(const std::string& path) {
  std::ifstream in(path);
  int n = 0;
  for (std::string line; std::getline(in, line);) ++n;
  return n;
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// An exec plugin that records each run (its arguments) beside itself and
// prints the credential given.
std::string Plugin(const std::string& status_json,
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

std::string ExecUser(const std::string& command, const std::string& version = "client.authentication.k8s.io/v1") {
  return "- name: exec-user\n  user:\n    exec:\n      apiVersion: " + version +
         "\n      command: " + command +
         "\n      args: [get-token, --cluster, dev]\n      env:\n      - name: PLUGIN_GREETING\n"
         "        value: hello\n      interactiveMode: Never\n"
         "      installHint: \"install it with: apt-get install the-plugin\"\n";
}

// A kubeconfig whose current context uses user.
std::string WithUser(const std::string& user_entry, const std::string& user_name) {
  return "current-context: dev\nclusters:\n- name: dev-cluster\n  cluster:\n"
         "    server: https://dev.example:6443\ncontexts:\n- name: dev\n  context:\n"
         "    cluster: dev-cluster\n    user: " + user_name + "\nusers:\n" + user_entry;
}

}  // namespace

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

TEST_CASE("paths in a kubeconfig are relative to its directory; -data wins over a file") {
  TempDir dir;
  dir.write("conf/pki/ca.pem", "CA FROM FILE");
  dir.write("conf/pki/client.pem", "CERT FROM FILE");
  dir.write("conf/pki/client.key", kKey);
  dir.write("conf/token", kToken + "\n");
  const std::string file = dir.write(
      "conf/kubeconfig",
      "current-context: dev\nclusters:\n- name: c\n  cluster:\n    server: https://x:1\n"
      "    certificate-authority: pki/ca.pem\ncontexts:\n- name: dev\n  context: {cluster: c, user: u}\n"
      "users:\n- name: u\n  user:\n    client-certificate: pki/client.pem\n    client-key: pki/client.key\n"
      "    tokenFile: token\n");
  CredentialSearch search = InHome(dir);
  search.kubeconfig = file;
  const ClusterAccess access = Load(search);
  CHECK(access.ca_pem == "CA FROM FILE");
  const fiber::http::Request request = Authenticated(access);
  CHECK(request.ca_pem == "CA FROM FILE");
  CHECK(request.client_cert_pem == "CERT FROM FILE");
  CHECK(request.client_key_pem == kKey);
  CHECK(Authorization(request) == "Bearer " + kToken);
}

TEST_CASE("certificate -data fields are base64 and win over files") {
  TempDir dir;
  const std::string file = dir.write(
      "kubeconfig",
      "current-context: dev\nclusters:\n- name: c\n  cluster:\n    server: https://x:1\n"
      "    certificate-authority: missing-ca.pem\n"
      "    certificate-authority-data: " + fiber::Base64Encode("CA FROM DATA") + "\n"
      "contexts:\n- name: dev\n  context: {cluster: c, user: u}\n"
      "users:\n- name: u\n  user:\n    client-certificate: none.pem\n    client-key: none.key\n"
      "    client-certificate-data: " + fiber::Base64Encode("CERT FROM DATA") + "\n"
      "    client-key-data: " + fiber::Base64Encode(kKey) + "\n");
  CredentialSearch search = InHome(dir);
  search.kubeconfig = file;
  const fiber::http::Request request = Authenticated(Load(search));
  CHECK(request.ca_pem == "CA FROM DATA");
  CHECK(request.client_cert_pem == "CERT FROM DATA");
  CHECK(request.client_key_pem == kKey);
  CHECK(Authorization(request).empty());
}

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

TEST_CASE("each malformed kubeconfig gives one error naming the file and the field") {
  TempDir dir;
  CredentialSearch search = InHome(dir);
  search.kubeconfig = dir.path() + "/kubeconfig";
  auto error_for = [&](const std::string& text) {
    dir.write("kubeconfig", text);
    return LoadError(search);
  };
  const std::string f = search.kubeconfig;
  const std::string user = "- name: u\n  user:\n    token: " + kToken + "\n";

  CHECK(error_for("clusters: [\n  {name: " + kToken) ==
        f + " is not valid YAML (line 2, column 1: end of map flow not found)");
  CHECK(error_for("- " + kToken + "\n") == f + " is not a kubeconfig: its top level is not a map");
  CHECK(error_for("clusters: " + kToken + "\n") == f + ": clusters is not a list");
  CHECK(error_for("users:\n- user: {token: " + kToken + "}\n") == f + ": users[0] has no name");
  CHECK(error_for("users:\n- " + kToken + "\n") == f + ": users[0] is not a map");
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
  CHECK(error_for("current-context: dev\ncontexts:\n- name: dev\n  context: {cluster: c}\n"
                  "clusters:\n- name: c\n  cluster: {server: x, certificate-authority: ca.pem}\n") ==
        f + ": cluster \"c\": certificate-authority: cannot read " + dir.path() +
            "/ca.pem (No such file or directory)");
  CHECK(error_for("current-context: dev\ncontexts:\n- name: dev\n  context: {cluster: c}\n"
                  "clusters:\n- name: c\n  cluster: {server: https://x, certificate-authority-data: '%%%'}\n") ==
        f + ": cluster \"c\": certificate-authority-data is not base64");
  CHECK(error_for(WithUser("- name: u\n  user:\n    client-key-data: " + fiber::Base64Encode(kKey) + "\n", "u")) ==
        f + ": user \"u\" has a client key without a certificate");
  CHECK(error_for(WithUser("- name: u\n  user:\n    client-key-data: not*base64" + kToken + "\n", "u")) ==
        f + ": user \"u\": client-key-data is not base64");
  CHECK(error_for(WithUser("- name: u\n  user:\n    token: [" + kToken + "]\n", "u")) ==
        f + ": user \"u\": token is not text");
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
