// SHA-256 digests in the form images name their blobs ("sha256:<hex>"),
// through OpenSSL's libcrypto: a well-kept implementation beats one of our
// own for a function whose output must match every registry's.
#pragma once

#include <memory>
#include <string>
#include <string_view>

namespace fiber::image {

/// A running digest: Update with the bytes in order, then Digest once.
/// Not thread-safe.
class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  void Update(std::string_view bytes);
  /// "sha256:" and 64 lower-case hex digits.
  std::string Digest();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

/// The digest of bytes held in memory.
std::string DigestOf(std::string_view bytes);

/// The hex part of "sha256:<hex>".
std::string_view HexOf(std::string_view digest);

}  // namespace fiber::image
