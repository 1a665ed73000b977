// "HOST:PORT" as a setting gives an address to listen on (the metrics
// setting): ":PORT" for every address, "[::1]:PORT" for IPv6.
#pragma once

#include <string>

namespace fiber::config {

/// Splits text into *host ("0.0.0.0" when empty) and *port (0..65535);
/// false with *err saying what is wrong.
[[nodiscard]] bool ParseHostPort(const std::string& text, std::string* host, int* port, std::string* err);

}  // namespace fiber::config
