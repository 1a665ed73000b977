// The fields of a kubeconfig's entries: paths relative to the file's
// directory, -data fields in base64 winning over files; and one clear error,
// naming the file, the entry and the field, for each malformed one.
#include <doctest/doctest.h>

#include "encoding/base64.hpp"
#include "support/kubeconfigs.hpp"

using fiber::kube::ClusterAccess;
using fiber::kube::CredentialSearch;
using namespace fiber::testing;  // TempDir, the kubeconfigs and their loading

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

TEST_CASE("each malformed field gives one error naming the file, the entry and the field") {
  TempDir dir;
  const auto error_for = ErrorOfKubeconfig(dir);
  const std::string f = dir.path() + "/kubeconfig";

  CHECK(error_for("current-context: dev\ncontexts:\n- name: dev\n  context: {cluster: c}\n"
                  "clusters:\n- name: c\n  cluster: {server: x, certificate-authority: ca.pem}\n") ==
        f + ": cluster \"c\": certificate-authority: cannot read " + dir.path() +
            "/ca.pem (No such file or directory)");
  CHECK(error_for("current-context: dev\ncontexts:\n- name: dev\n  context: {cluster: c}\n"
                  "clusters:\n- name: c\n  cluster: {server: https://x, certificate-authority-data: '%%%'}\n") ==
        f + ": cluster \"c\": certificate-authority-data is not base64");
  CHECK(error_for(WithUser("- name: u\n  user:\n    client-key-data: not*base64" + kToken + "\n", "u")) ==
        f + ": user \"u\": client-key-data is not base64");
  CHECK(error_for(WithUser("- name: u\n  user:\n    token: [" + kToken + "]\n", "u")) ==
        f + ": user \"u\": token is not text");
}
