// Base64 (RFC 4648, with padding), as registries' credentials (config.json's
// "auth", HTTP Basic) and kubeconfig files (certificate-authority-data,
// client-key-data) use it. Plain code, so libfiber needs no libcrypto.
#pragma once

#include <string>
#include <string_view>

namespace fiber {

std::string Base64Encode(std::string_view bytes);
/// False when text is not base64; white space (a folded line) is skipped.
[[nodiscard]] bool Base64Decode(std::string_view text, std::string* bytes);

}  // namespace fiber
