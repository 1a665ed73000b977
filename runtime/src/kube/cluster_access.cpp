#include "kube/cluster_access.hpp"

#include "http/header_text.hpp"
#include "os/whole_file.hpp"

namespace fiber::kube {

bool ReadCredentialFile(const std::string& path, std::string* text, std::string* err) {
  std::string why;
  if (os::ReadWholeFile(path, text, &why)) return true;
  *err = "cannot read " + path + " (" + why + ")";
  return false;
}

bool ClusterAccess::Authenticate(http::Request* request, std::string* err) const {
  ClientIdentity identity{token, client_cert_pem, client_key_pem};
  if (!token_file.empty()) {
    std::string text;
    if (!ReadCredentialFile(token_file, &text, err)) return false;
    identity.token = std::string(http::Trim(text));
    if (identity.token.empty()) {
      *err = "the token file " + token_file + " is empty";
      return false;
    }
  }
  if (exec) {
    ClientIdentity given;
    if (!exec->Get(&given, err)) return false;
    if (!given.token.empty()) identity.token = given.token;
    if (!given.client_cert_pem.empty()) {
      identity.client_cert_pem = given.client_cert_pem;
      identity.client_key_pem = given.client_key_pem;
    }
  }
  request->ca_pem = ca_pem;
  request->insecure_skip_verify = insecure_skip_verify;
  request->client_cert_pem = identity.client_cert_pem;
  request->client_key_pem = identity.client_key_pem;
  if (!identity.token.empty()) request->headers.push_back("Authorization: Bearer " + identity.token);
  return true;
}

void ClusterAccess::Renew() const {
  if (exec) exec->Forget();
}

}  // namespace fiber::kube
