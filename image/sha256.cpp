#include "image/sha256.hpp"

#include <openssl/evp.h>

namespace fiber::image {

struct Sha256::State {
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  ~State() { EVP_MD_CTX_free(ctx); }
};

Sha256::Sha256() : state_(std::make_unique<State>()) {
  EVP_DigestInit_ex(state_->ctx, EVP_sha256(), nullptr);
}

Sha256::~Sha256() = default;

void Sha256::Update(std::string_view bytes) {
  EVP_DigestUpdate(state_->ctx, bytes.data(), bytes.size());
}

std::string Sha256::Digest() {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  EVP_DigestFinal_ex(state_->ctx, md, &n);
  static const char kHex[] = "0123456789abcdef";
  std::string out = "sha256:";
  for (unsigned int i = 0; i < n; ++i) {
    out += kHex[md[i] >> 4];
    out += kHex[md[i] & 15];
  }
  return out;
}

std::string DigestOf(std::string_view bytes) {
  Sha256 sha;
  sha.Update(bytes);
  return sha.Digest();
}

std::string_view HexOf(std::string_view digest) {
  const auto colon = digest.find(':');
  return colon == std::string_view::npos ? digest : digest.substr(colon + 1);
}

}  // namespace fiber::image
