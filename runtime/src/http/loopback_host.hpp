// Whether a host name or address names this machine's loopback interface:
// "localhost", an IPv4 address in 127.0.0.0/8 or ::1 (bracketed or not).
// A name that merely starts with "127." (127.example.com) is not one. Used
// where loopback earns trust: plain HTTP to a registry, a master address a
// remote worker cannot reach.
#pragma once

#include <string_view>

namespace fiber::http {

bool IsLoopbackHost(std::string_view host);

}  // namespace fiber::http
