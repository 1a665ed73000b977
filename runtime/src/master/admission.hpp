// Who talks to a master: only peers that complete the CurveZMQ handshake,
// which takes the master's public key, derived from the run's secret
// (wire/credentials.hpp). Watches the ROUTER socket's handshakes and logs
// every refusal with the peer's address (rate-limited so a flood cannot fill
// the log). Bounds what peers that have not proven the key make the master
// hold: each connection costs a descriptor until its handshake ends, so
// there is a time limit on the handshake and a cap on such connections,
// per peer address and in all, past which the newest is closed at once.
// Runs on a thread of its own that owns the monitor socket, so the master's
// I/O loop polls nothing but its ROUTER and inbox.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <zmq.hpp>

#include "log.hpp"

#include "wire/socket_monitor.hpp"

namespace fiber::master {

struct PeerEvent;

/// How long a connection may take to prove the run's key before the master
/// closes it (ZMQ_HANDSHAKE_IVL; libzmq's default is 30 s). A worker's
/// handshake is two round trips; the rest is room for a loaded machine.
inline constexpr std::chrono::seconds kHandshakeTimeout{10};
/// The most connections from one peer address that the master holds before
/// their handshake is done; all local workers share 127.0.0.1.
inline constexpr std::size_t kMaxUnprovenPerAddress = 128;

class Admission {
 public:
  /// Watches router's handshakes and sets their time limit (call before
  /// router binds). Its thread calls on_closed (on that thread) with the
  /// descriptor of each connection that closes. Throws zmq::error_t.
  Admission(zmq::context_t& context, zmq::socket_t& router, std::function<void(int fd)> on_closed);
  /// Stops the thread; before the context ends.
  ~Admission();
  Admission(const Admission&) = delete;
  Admission& operator=(const Admission&) = delete;

  /// A message came over the connection on fd, so its handshake is done.
  /// Thread-safe. (libzmq's HANDSHAKE_SUCCEEDED event names no fd.) One
  /// proven before its ACCEPTED event is read counts until its handshake
  /// time is up: more refused for a while, never fewer.
  void Proven(int fd);

 private:
  using Clock = std::chrono::steady_clock;
  struct Unproven {
    std::string address;  // the peer's, without its port
    Clock::time_point accepted;
  };

  void Run();
  void HandleMonitor();
  /// Counts accepted as unproven; false, with why, when a bound is reached.
  [[nodiscard]] bool Hold(const PeerEvent& accepted, std::string* why);
  void Forget(std::uint32_t fd);  // under mu_
  void LogRefusal(const std::string& what);

  wire::SocketMonitor monitor_;
  std::unordered_map<std::uint32_t, std::string> peers_;  // by fd: "ip:port", "" if unknown
  const std::size_t max_unproven_;  // in all, from the descriptor limit
  std::mutex mu_;
  std::unordered_map<std::uint32_t, Unproven> unproven_;     // by fd; guarded by mu_
  std::unordered_map<std::string, std::size_t> unproven_from_;  // by address; guarded by mu_
  int handshake_failed_ = 0;  // the failure event awaiting its DISCONNECTED
  log::RateLimit refused_;
  std::function<void(int fd)> on_closed_;
  int stop_fd_ = -1;
  std::thread thread_;
};

}  // namespace fiber::master
