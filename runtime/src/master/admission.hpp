// Who talks to a master: only peers that complete the CurveZMQ handshake,
// which takes the master's public key, derived from the run's secret
// (wire/credentials.hpp). Watches the ROUTER socket's handshakes and logs
// every refusal with the peer's address (rate-limited so a flood cannot fill
// the log). Runs on a thread of its own that owns the monitor socket, so the
// master's I/O loop polls nothing but its ROUTER and inbox.
#pragma once

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
  /// Watches router's handshakes (call before router binds). Its thread
  /// calls on_closed (on that thread) with the descriptor of each
  /// connection that closes. Throws zmq::error_t.
  Admission(zmq::context_t& context, zmq::socket_t& router, std::function<void(int fd)> on_closed);
  /// Stops the thread; before the context ends.
  ~Admission();
  Admission(const Admission&) = delete;
  Admission& operator=(const Admission&) = delete;

 private:
  void Run();
  void HandleMonitor();
  void LogRefusal(const std::string& what);

  wire::SocketMonitor monitor_;
  std::unordered_map<std::uint32_t, std::string> peers_;  // by fd: "ip:port", "" if unknown
  int handshake_failed_ = 0;  // the failure event awaiting its DISCONNECTED
  log::RateLimit refused_;
  std::function<void(int fd)> on_closed_;
  int stop_fd_ = -1;
  std::thread thread_;
};

}  // namespace fiber::master
