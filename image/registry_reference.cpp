#include "image/registry_reference.hpp"

#include <cctype>

#include "http/loopback_host.hpp"

namespace fiber::image {

namespace {

// "host:port", "[::1]:5000" or "host" without its port.
std::string_view HostWithoutPort(std::string_view registry) {
  if (registry.rfind('[', 0) == 0) return registry.substr(0, registry.find(']') + 1);
  return registry.substr(0, registry.find(':'));
}

// Lower-case letters and digits, joined by '.', '_', '__', '-' or '/'.
bool ValidRepository(const std::string& name) {
  if (name.empty() || !std::isalnum(static_cast<unsigned char>(name.front())) ||
      !std::isalnum(static_cast<unsigned char>(name.back())))
    return false;
  for (char c : name)
    if (!(std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) ||
          c == '.' || c == '_' || c == '-' || c == '/'))
      return false;
  return name.find("//") == std::string::npos;
}

bool ValidTag(const std::string& tag) {
  if (tag.empty() || tag.size() > 128 || tag[0] == '.' || tag[0] == '-') return false;
  for (char c : tag)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-')) return false;
  return true;
}

}  // namespace

bool UrlUnder(std::string_view url, std::string_view base) {
  if (base.empty() || url.rfind(base, 0) != 0) return false;
  return url.size() == base.size() || url[base.size()] == '/' || url[base.size()] == '?' ||
         base.back() == '/';
}

bool SecureUrl(std::string_view url) {
  if (url.rfind("https://", 0) == 0) return url.size() > 8;
  if (url.rfind("http://", 0) != 0) return false;
  const std::string_view rest = url.substr(7);
  return http::IsLoopbackHost(HostWithoutPort(rest.substr(0, rest.find_first_of("/?"))));
}

bool RegistryReference::Owns(std::string_view url) const { return UrlUnder(url, BaseUrl()); }

std::string RegistryReference::BaseUrl() const {
  return (http::IsLoopbackHost(HostWithoutPort(registry)) ? "http://" : "https://") + registry;
}

bool ParseRegistryReference(const std::string& text, RegistryReference* out, std::string* err) {
  const std::string form = " (a reference is REGISTRY/NAME[:TAG], e.g. 127.0.0.1:5000/team/train:v1)";
  const auto slash = text.find('/');
  const std::string registry = slash == std::string::npos ? "" : text.substr(0, slash);
  if (registry.empty() ||
      (registry.find('.') == std::string::npos && registry.find(':') == std::string::npos &&
       registry != "localhost")) {
    *err = "'" + text + "' names no registry" + form;
    return false;
  }
  std::string rest = text.substr(slash + 1);
  std::string tag;
  const auto colon = rest.rfind(':');
  if (colon != std::string::npos && rest.find('/', colon) == std::string::npos) {
    tag = rest.substr(colon + 1);
    rest.resize(colon);
    if (!ValidTag(tag)) {
      *err = "'" + tag + "' is not a valid tag" + form;
      return false;
    }
  }
  if (!ValidRepository(rest)) {
    *err = "'" + rest + "' is not a valid image name (lower-case letters, digits, '.', '_', '-', '/')" + form;
    return false;
  }
  *out = {registry, rest, tag};
  return true;
}

}  // namespace fiber::image
