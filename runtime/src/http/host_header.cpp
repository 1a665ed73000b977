#include "http/host_header.hpp"

#include <arpa/inet.h>
#include <unistd.h>

#include <algorithm>

#include "http/header_text.hpp"
#include "http/loopback_host.hpp"

namespace fiber::http {

bool IsAddress(const std::string& host) {
  in6_addr any{};
  return ::inet_pton(AF_INET, host.c_str(), &any) == 1 || ::inet_pton(AF_INET6, host.c_str(), &any) == 1;
}

std::vector<std::string> ServerNames(const std::string& listen_host) {
  std::vector<std::string> names = {"localhost"};
  if (!listen_host.empty() && listen_host != "*" && !IsAddress(listen_host)) names.push_back(Lower(listen_host));
  char name[256] = {};
  if (!IsLoopbackHost(listen_host) && ::gethostname(name, sizeof name - 1) == 0 && name[0] != '\0')
    names.push_back(Lower(name));
  return names;
}

bool NamesServer(std::string_view value, const std::vector<std::string>& names) {
  std::string_view host = value;
  if (value.size() > 1 && value.front() == '[') {
    const std::size_t end = value.find(']');
    if (end == std::string_view::npos) return false;
    host = value.substr(1, end - 1);
    if (end + 1 != value.size() && value[end + 1] != ':') return false;
  } else if (value.find(':') == value.rfind(':')) {
    host = value.substr(0, value.find(':'));
  }
  if (host.size() > 1 && host.back() == '.') host.remove_suffix(1);  // "localhost." is localhost
  const std::string lower = Lower(host);
  if (lower.empty()) return false;
  return IsAddress(lower) || std::find(names.begin(), names.end(), lower) != names.end();
}

}  // namespace fiber::http
