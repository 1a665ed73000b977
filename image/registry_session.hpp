// HTTP exchanges with one repository of a registry (the registry HTTP API
// v2), authenticated as the registry asks in its 401's WWW-Authenticate:
// HTTP Basic with the credentials, or a Bearer token from the realm it
// names (asked for with the credentials, when there are any). The
// credentials and the token go only into headers, and only to the registry
// itself (RegistryReference::Owns): an upload Location or a token realm on
// another host, or over plain HTTP, is asked without them. No message here
// holds them.
// Not thread-safe.
#pragma once

#include <string>

#include "http/client.hpp"
#include "image/registry_credentials.hpp"
#include "image/registry_reference.hpp"

namespace fiber::image {

class RegistrySession {
 public:
  RegistrySession(RegistryReference where, Credentials credentials)
      : where_(std::move(where)), credentials_(std::move(credentials)) {}

  const RegistryReference& where() const { return where_; }

  /// Performs request, whose url is a path on the registry ("/v2/...") or a
  /// whole URL (an upload's Location), answering one challenge. False with
  /// *err when the registry cannot be reached or refuses the credentials.
  [[nodiscard]] bool Send(http::Request request, http::Response* response, std::string* err);

 private:
  bool Authorize(const std::string& challenge, std::string* err);
  bool Refused(std::string* err) const;
  /// The error for url, on another host, asking for credentials.
  bool Withheld(const std::string& url, std::string* err) const;

  RegistryReference where_;
  Credentials credentials_;
  std::string authorization_;  // "Basic ..." or "Bearer ...", once known
};

}  // namespace fiber::image
