// Whether a request's Host header names the server it reached: the check
// against DNS rebinding, where a page of evil.example that a browser
// resolves to this machine still says "Host: evil.example". An address is
// accepted (a page whose origin is an address cannot rebind it); a name
// only when the server answers to it: localhost, the host it was told to
// listen on, and this machine's own name when it listens beyond loopback.
// Used by http/get_server (the master's /metrics). Knows nothing of fiber.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace fiber::http {

/// Whether host is an IPv4 or IPv6 address (no brackets), not a name.
bool IsAddress(const std::string& host);

/// The names a server told to listen on listen_host answers to, lower case.
std::vector<std::string> ServerNames(const std::string& listen_host);

/// Whether value, a Host header ("name", "name:port", "1.2.3.4:port",
/// "[::1]:port"), is an address or one of names (any case).
bool NamesServer(std::string_view value, const std::vector<std::string>& names);

}  // namespace fiber::http
