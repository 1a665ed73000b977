// "HOST:PORT" as a setting gives an address to listen on (the metrics
// setting): ":PORT" for loopback alone (127.0.0.1), as the master's own
// endpoint; "0.0.0.0:PORT" for every address; "[::1]:PORT" for IPv6.
#pragma once

#include <string>

namespace fiber::config {

/// The host of ":PORT".
inline constexpr const char* kLoopbackHost = "127.0.0.1";

/// Splits text into *host (kLoopbackHost when empty) and *port (0..65535);
/// false with *err saying what is wrong.
[[nodiscard]] bool ParseHostPort(const std::string& text, std::string* host, int* port, std::string* err);

}  // namespace fiber::config
