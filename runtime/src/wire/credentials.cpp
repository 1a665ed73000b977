#include "wire/credentials.hpp"

#include <cstdint>
#include <fstream>
#include <stdexcept>
#include <string_view>
#include <utility>

#include <sodium.h>

namespace fiber::wire {

namespace {
// The subkey ids and context of the derivation: changing either is a change
// of protocol (a worker and its master must derive alike).
constexpr std::uint64_t kServerSubkey = 1;
constexpr char kContext[crypto_kdf_CONTEXTBYTES + 1] = "fiberrun";
}  // namespace

bool Credentials::Generate(Credentials* out, std::string* err) {
  if (!zmq_has("curve")) {
    *err = "libzmq was built without CURVE security; fiber needs it";
    return false;
  }
  char pub[41], sec[41];
  if (zmq_curve_keypair(pub, sec) != 0) {
    *err = std::string("cannot make CURVE keys: ") + zmq_strerror(zmq_errno());
    return false;
  }
  return FromClientKey(sec, out, err);
}

bool Credentials::FromClientKey(const std::string& client_secret, Credentials* out,
                                std::string* err) {
  Credentials made;
  std::uint8_t key[32];
  if (!PublicKeyOf(client_secret, &made.client_public) ||
      !zmq_z85_decode(key, client_secret.c_str())) {
    *err = "the workers' key is not a CURVE secret key (40 characters of Z85)";
    return false;
  }
  made.client_secret = client_secret;
  static_assert(crypto_kdf_KEYBYTES == sizeof key);
  std::uint8_t server[32];
  char text[41];
  const bool derived =
      sodium_init() >= 0 &&
      crypto_kdf_derive_from_key(server, sizeof server, kServerSubkey, kContext, key) == 0 &&
      zmq_z85_encode(text, server, sizeof server);
  if (derived) made.server_secret = text;
  sodium_memzero(key, sizeof key);
  sodium_memzero(server, sizeof server);
  sodium_memzero(text, sizeof text);
  if (!derived || !PublicKeyOf(made.server_secret, &made.server_public)) {
    *err = "cannot derive the master's CURVE key";
    return false;
  }
  *out = std::move(made);
  return true;
}

bool ReadKeyFile(const std::string& path, std::string* key) {
  std::ifstream in(path, std::ios::binary);
  char text[64] = {};  // a key is 40 characters: more is not one
  in.read(text, sizeof text);
  if (in.bad() || (!in && in.gcount() == 0)) return false;
  key->assign(text, static_cast<std::size_t>(in.gcount()));
  if (!key->empty() && key->back() == '\n') key->pop_back();
  return true;
}

namespace {
// The 85 characters of Z85 (ZeroMQ RFC 32), in encoding order.
constexpr std::string_view kZ85Alphabet =
    "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#";
static_assert(kZ85Alphabet.size() == 85);
}  // namespace

bool IsZ85Key(const std::string& key) {
  if (key.size() != 40) return false;
  // zmq_z85_decode reads a C string: it would take a key cut short by a NUL.
  for (char c : key)
    if (kZ85Alphabet.find(c) == std::string_view::npos) return false;
  std::uint8_t decoded[32];
  return zmq_z85_decode(decoded, key.c_str()) != nullptr;
}

bool PublicKeyOf(const std::string& secret, std::string* public_key) {
  if (!IsZ85Key(secret)) return false;
  char pub[41];
  if (zmq_curve_public(pub, secret.c_str()) != 0) return false;
  *public_key = pub;
  return true;
}

void MakeCurveClient(zmq::socket_t& socket, const std::string& client_secret) {
  Credentials keys;
  std::string err;
  if (!Credentials::FromClientKey(client_secret, &keys, &err)) throw std::invalid_argument(err);
  socket.set(zmq::sockopt::curve_serverkey, keys.server_public);
  socket.set(zmq::sockopt::curve_publickey, keys.client_public);
  socket.set(zmq::sockopt::curve_secretkey, keys.client_secret);
}

void MakeCurveServer(zmq::socket_t& socket, const std::string& client_secret) {
  Credentials keys;
  std::string err;
  if (!Credentials::FromClientKey(client_secret, &keys, &err)) throw std::invalid_argument(err);
  socket.set(zmq::sockopt::curve_server, 1);
  socket.set(zmq::sockopt::curve_secretkey, keys.server_secret);
}

}  // namespace fiber::wire
