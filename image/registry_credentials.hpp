// A registry's credentials, read where users keep them: Docker's
// config.json ($DOCKER_CONFIG/config.json, else ~/.docker/config.json:
// credHelpers, then auths' base64 "user:password", then credsStore) and
// Podman's auth file ($REGISTRY_AUTH_FILE, else
// $XDG_RUNTIME_DIR/containers/auth.json, else
// ~/.config/containers/auth.json), the first that has the registry winning.
// A credential helper is run as docker runs it (docker-credential-NAME get,
// the registry on stdin). Nothing here ever prints a secret.
#pragma once

#include <string>

#include "config/settings.hpp"

namespace fiber::image {

struct Credentials {
  std::string username;
  std::string secret;  // the password
  /// Where they came from ("/home/me/.docker/config.json"), for errors.
  std::string source;
  /// A token service on another host that may have them too, as the user
  /// named it (setting registry_token_service; empty: only the registry).
  std::string token_service;
  bool found() const { return !username.empty() || !secret.empty(); }
};

/// Looks registry ("host:port") up; true with out->found() false when no
/// file has it. False with *err when a file that exists cannot be read or
/// a credential helper fails.
[[nodiscard]] bool FindCredentials(const std::string& registry, const config::Getenv& getenv,
                                   Credentials* out, std::string* err);

}  // namespace fiber::image
