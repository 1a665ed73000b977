// Where an image is pushed: "REGISTRY/NAME[:TAG]", as docker push takes it,
// with the registry always named (host[:port]). A registry on loopback
// (127.0.0.0/8, localhost, [::1]) is spoken to in plain HTTP, as engines
// allow; every other one over HTTPS.
#pragma once

#include <string>
#include <string_view>

namespace fiber::image {

struct RegistryReference {
  std::string registry;    // "127.0.0.1:5000", "registry.example:443"
  std::string repository;  // "team/train"
  std::string tag;         // empty: none was given
  /// "http://127.0.0.1:5000" or "https://registry.example".
  std::string BaseUrl() const;
  /// Whether url is on the registry itself: BaseUrl's scheme, host and
  /// port. Only there do its credentials go (not to an upload Location or a
  /// token realm elsewhere, nor over plain HTTP to a registry on HTTPS).
  bool Owns(std::string_view url) const;
};

/// Whether url is base itself or a path or query under it: the same scheme,
/// host and port.
bool UrlUnder(std::string_view url, std::string_view base);
/// Whether a service at url may be sent credentials at all: HTTPS, or plain
/// HTTP on loopback.
bool SecureUrl(std::string_view url);

/// Parses text; false with *err saying what a reference looks like.
[[nodiscard]] bool ParseRegistryReference(const std::string& text, RegistryReference* out,
                                          std::string* err);

}  // namespace fiber::image
