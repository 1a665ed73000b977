// Base64 as registries' credentials use it (config.json's "auth", HTTP
// Basic), through OpenSSL's libcrypto.
#pragma once

#include <string>
#include <string_view>

namespace fiber::image {

std::string Base64Encode(std::string_view bytes);
/// False when text is not base64.
[[nodiscard]] bool Base64Decode(std::string_view text, std::string* bytes);

}  // namespace fiber::image
