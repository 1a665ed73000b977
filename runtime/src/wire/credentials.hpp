// The per-run CurveZMQ keys: the master's keypair, and one client keypair
// that every worker of the run holds. The master admits a connection only
// when it proves the client secret (see master/admission.hpp).
#pragma once

#include <string>
#include <zmq.hpp>

namespace fiber::wire {

struct Credentials {
  std::string server_public;  // Z85, 40 characters
  std::string server_secret;
  std::string client_public;
  std::string client_secret;

  /// Fresh keys; false when libzmq lacks CURVE support.
  [[nodiscard]] static bool Generate(Credentials* out, std::string* err);
  /// A fresh server keypair for workers whose key was made elsewhere (fiber
  /// run, for a master in a pod); false with *err for a malformed key.
  [[nodiscard]] static bool ForClientKey(const std::string& client_secret, Credentials* out,
                                         std::string* err);
};

/// The key held in a file (a backend's or a Kubernetes Secret's), a
/// trailing newline dropped; false when it cannot be read.
[[nodiscard]] bool ReadKeyFile(const std::string& path, std::string* key);

/// Z85 public key for a Z85 secret key; false when secret is malformed.
[[nodiscard]] bool PublicKeyOf(const std::string& secret, std::string* public_key);
/// True for a well-formed 40-character Z85 key: every character in the
/// Z85 alphabet (no NUL, which libzmq would stop reading at).
bool IsZ85Key(const std::string& key);

/// Makes socket a CURVE client of a server with the given public key.
void MakeCurveClient(zmq::socket_t& socket, const std::string& server_public,
                     const std::string& client_public,
                     const std::string& client_secret);

}  // namespace fiber::wire
