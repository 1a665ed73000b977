// Who may talk to a master: only peers that prove the run's client key in the
// CurveZMQ handshake. Serves the context's ZAP endpoint and watches the
// ROUTER socket's failed handshakes, logging every refusal (rate-limited so
// a flood cannot fill the log). Owned by the master's I/O thread.
#pragma once

#include <cstdint>
#include <string>
#include <zmq.hpp>

namespace fiber::master {

class Admission {
 public:
  /// Binds the ZAP endpoint of context; client_public is the run's Z85 key.
  Admission(zmq::context_t& context, const std::string& client_public);
  /// Starts watching handshakes on the socket that will do CURVE.
  void Watch(zmq::socket_t& router, zmq::context_t& context);

  zmq::socket_t& zap() { return zap_; }
  zmq::socket_t& monitor() { return monitor_; }
  /// Answers one pending ZAP request.
  void HandleZap();
  /// Reads one monitor event.
  void HandleMonitor();
  std::uint64_t refused() const { return refused_; }

 private:
  void LogRefusal(const std::string& what);

  zmq::socket_t zap_;
  zmq::socket_t monitor_;
  std::uint8_t client_key_[32];
  std::uint64_t refused_ = 0;
  std::uint64_t monitor_id_ = 0;
};

}  // namespace fiber::master
