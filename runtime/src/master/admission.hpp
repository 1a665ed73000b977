// Who may talk to a master: only peers that prove the run's client key in the
// CurveZMQ handshake. Serves the context's ZAP endpoint and watches the
// ROUTER socket's failed handshakes, logging every refusal with the peer's
// address (rate-limited so a flood cannot fill the log). Runs on a thread of
// its own that owns both sockets, so the master's I/O loop polls nothing but
// its ROUTER and inbox.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <thread>
#include <unordered_map>
#include <zmq.hpp>

#include "log.hpp"

#include "wire/socket_monitor.hpp"

namespace fiber::master {

class Admission {
 public:
  /// Binds the ZAP endpoint of context and watches router's handshakes
  /// (call before router binds); client_public is the run's Z85 key. Its
  /// thread answers from then on, and calls on_closed (on that thread) with
  /// the descriptor of each connection that closes. Throws zmq::error_t.
  Admission(zmq::context_t& context, zmq::socket_t& router, const std::string& client_public,
            std::function<void(int fd)> on_closed);
  /// Stops the thread; before the context ends.
  ~Admission();
  Admission(const Admission&) = delete;
  Admission& operator=(const Admission&) = delete;

 private:
  void Run();
  void HandleZap();
  void HandleMonitor();
  void LogRefusal(const std::string& what);

  zmq::socket_t zap_;
  wire::SocketMonitor monitor_;
  std::unordered_map<std::uint32_t, std::string> peers_;  // by fd: "ip:port", "" if unknown
  int handshake_failed_ = 0;  // the failure event awaiting its DISCONNECTED
  std::uint8_t client_key_[32];
  log::RateLimit refused_;
  std::function<void(int fd)> on_closed_;
  int stop_fd_ = -1;
  std::thread thread_;
};

}  // namespace fiber::master
