#include "config/host_port.hpp"

#include <cerrno>
#include <cstdlib>

namespace fiber::config {

bool ParseHostPort(const std::string& text, std::string* host, int* port, std::string* err) {
  const auto bad = [&](const std::string& why) {
    *err = "'" + text + "' is not HOST:PORT (" + why + ")";
    return false;
  };
  const std::size_t colon = text.rfind(':');
  if (colon == std::string::npos) return bad("no ':PORT'");
  std::string name = text.substr(0, colon);
  if (!name.empty() && name.front() == '[') {
    if (name.size() < 3 || name.back() != ']') return bad("an IPv6 address goes in [ ]");
    name = name.substr(1, name.size() - 2);
  } else if (name.find(':') != std::string::npos) {
    return bad("an IPv6 address goes in [ ]");
  }
  if (name.find_first_of(" \t/") != std::string::npos) return bad("not a host name or address");
  const std::string digits = text.substr(colon + 1);
  char* end = nullptr;
  errno = 0;
  const long n = std::strtol(digits.c_str(), &end, 10);
  if (digits.empty() || *end != '\0' || errno != 0 || n < 0 || n > 65535)
    return bad("the port is a whole number from 0 to 65535");
  *host = name.empty() ? kLoopbackHost : name;
  *port = static_cast<int>(n);
  return true;
}

}  // namespace fiber::config
