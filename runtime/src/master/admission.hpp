// Who talks to a master: only peers that complete the CurveZMQ handshake,
// which takes the master's public key, derived from the run's secret
// (wire/credentials.hpp). Watches the ROUTER socket's handshakes and logs
// every refusal with the peer's address (rate-limited so a flood cannot fill
// the log). Bounds the connections that have not proven the key, each
// holding a descriptor and up to 1 MiB: libzmq closes them after
// wire::kHandshakeTimeout, and past a cap the newest is closed at once. The
// cap is a quarter of the soft descriptor limit (8,192 at most), so admitted
// workers, pools and files keep the rest, and half of that from one peer
// address, so a flood from one leaves room for others. Local workers all
// come from 127.0.0.1 but hold a place only until their HELLO, and one
// closed for want of a place connects again. Runs on a thread of its own
// that owns the monitor socket, so the master's I/O loop polls nothing but
// its ROUTER and inbox. Thread-safe: Proven may be called from any thread.
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

#include "diagnostics/log.hpp"

#include "wire/socket_monitor.hpp"

namespace fiber::master {

struct PeerEvent;

class Admission {
 public:
  /// Watches router's handshakes and sets their time limit (call before
  /// router binds). Its thread calls on_accepted with each connection the
  /// socket accepts (its fd and peer), and on_closed with the descriptor of
  /// each that closes, in the order they happen. Throws zmq::error_t.
  Admission(zmq::context_t& context, zmq::socket_t& router,
            std::function<void(const PeerEvent&)> on_accepted,
            std::function<void(int fd)> on_closed);
  /// Stops the thread; before the context ends.
  ~Admission();
  Admission(const Admission&) = delete;
  Admission& operator=(const Admission&) = delete;

  /// A message came over the connection on fd, so its handshake is done
  /// (libzmq's HANDSHAKE_SUCCEEDED event names no connection). One proven
  /// before its ACCEPTED event is read holds its place until its handshake
  /// time is up: more closed for a while, never fewer.
  void Proven(int fd);

 private:
  using Clock = std::chrono::steady_clock;
  struct Unproven {
    std::string address;  // the peer's without its port; "" when unknown
    Clock::time_point accepted;
  };

  void Run();
  void HandleMonitor();
  /// Gives accepted a place; false, with why, when the caps leave none.
  [[nodiscard]] bool Hold(const PeerEvent& accepted, std::string* why);
  void ForgetExpired(Clock::time_point now);  // under mu_
  void Forget(std::uint32_t fd);               // under mu_
  void LogRefusal(const std::string& what);

  wire::SocketMonitor monitor_;
  const std::size_t max_unproven_;              // in all
  const std::size_t max_unproven_per_address_;  // from one address
  std::mutex mu_;
  std::unordered_map<std::uint32_t, Unproven> unproven_;        // by fd; guarded by mu_
  std::unordered_map<std::string, std::size_t> unproven_from_;  // by address; guarded by mu_
  Clock::time_point last_expiry_;                               // guarded by mu_
  std::unordered_map<std::uint32_t, std::string> peers_;  // by fd: "ip:port", "" if unknown
  int handshake_failed_ = 0;  // the failure event awaiting its DISCONNECTED
  log::RateLimit refused_;
  std::function<void(const PeerEvent&)> on_accepted_;
  std::function<void(int fd)> on_closed_;
  int stop_fd_ = -1;
  std::thread thread_;
};

}  // namespace fiber::master
