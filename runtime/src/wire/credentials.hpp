// The per-run CurveZMQ keys, all from one secret: the client secret key that
// every worker of the run holds. The master's keypair is derived from it
// (BLAKE2b, libsodium's crypto_kdf), so its public key is as secret as the
// client key and never handed over: only a peer holding the client key can
// open the master's handshake, and the master needs no per-connection ZAP
// check (see wire/admission.hpp and PROTOCOL.md, "Security").
#pragma once

#include <string>
#include <zmq.hpp>

namespace fiber::wire {

struct Credentials {
  std::string server_public;  // Z85, 40 characters; derived, secret
  std::string server_secret;  // derived
  std::string client_public;  // derived
  std::string client_secret;  // the run's one secret

  /// A fresh client key and what derives from it; false when libzmq lacks
  /// CURVE support.
  [[nodiscard]] static bool Generate(Credentials* out, std::string* err);
  /// The keys of a run whose client key was made elsewhere (fiber run, for a
  /// master in a pod, or a worker's bootstrap); false with *err for a
  /// malformed key.
  [[nodiscard]] static bool FromClientKey(const std::string& client_secret, Credentials* out,
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

/// Makes socket a CURVE client of the master of the run whose client key
/// this is (one FromClientKey accepts); throws std::invalid_argument for
/// any other.
void MakeCurveClient(zmq::socket_t& socket, const std::string& client_secret);
/// Makes socket a CURVE server with the keys of the run's master, so that
/// only the run's peers get through: what a manager's own endpoint is
/// (worker/direct_calls.hpp). Throws as MakeCurveClient does.
void MakeCurveServer(zmq::socket_t& socket, const std::string& client_secret);

}  // namespace fiber::wire
