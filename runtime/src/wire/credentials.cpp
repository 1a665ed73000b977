#include "wire/credentials.hpp"

#include <cstdint>
#include <fstream>
#include <string_view>

namespace fiber::wire {

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
  out->server_public = pub;
  out->server_secret = sec;
  if (zmq_curve_keypair(pub, sec) != 0) {
    *err = std::string("cannot make CURVE keys: ") + zmq_strerror(zmq_errno());
    return false;
  }
  out->client_public = pub;
  out->client_secret = sec;
  return true;
}

bool Credentials::ForClientKey(const std::string& client_secret, Credentials* out,
                               std::string* err) {
  Credentials made;
  if (!Generate(&made, err)) return false;
  if (!PublicKeyOf(client_secret, &made.client_public)) {
    *err = "the workers' key is not a CURVE secret key (40 characters of Z85)";
    return false;
  }
  made.client_secret = client_secret;
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

void MakeCurveClient(zmq::socket_t& socket, const std::string& server_public,
                     const std::string& client_public,
                     const std::string& client_secret) {
  socket.set(zmq::sockopt::curve_serverkey, server_public);
  socket.set(zmq::sockopt::curve_publickey, client_public);
  socket.set(zmq::sockopt::curve_secretkey, client_secret);
}

}  // namespace fiber::wire
