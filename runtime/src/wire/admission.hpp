// Who talks to a socket of the run that binds (the master's, a manager's
// own endpoint): only peers that complete the CurveZMQ handshake, which
// takes the master's public key, derived from the run's secret
// (credentials.hpp). Watches the ROUTER socket's handshakes and logs every
// refusal with the peer's address (rate-limited so a flood cannot fill the
// log). Bounds the connections that have not proven the key, each holding a
// descriptor and up to a frame (limits.hpp): libzmq closes them after
// kHandshakeTimeout, and past a cap the newest is closed at once. Places,
// of T in all (a quarter of the soft descriptor limit, 16 to 8,192), so
// admitted peers and files keep the rest:
// - an address none of whose connections has proven the key yet may hold
//   T/8, and all such addresses together T/2: a flood from a few more
//   addresses (any 127/8 one, on this machine) cannot take what the run's
//   peers need;
// - an address one has (where the run's workers are) may hold T/2.
// Local workers all come from 127.0.0.1 (so may another user's flood), but
// hold a place only until their HELLO, and one closed for want of a place
// connects again. Each connection makes at most one CURVE HELLO (an X25519
// on the socket's I/O thread) before it proves the key or is closed: the
// caps bound how many handshakes are under way, and a stranger's X25519s
// come no faster than its TCP connections, each an accept already
// (PROTOCOL.md, "Security"). Runs on a thread of its own that owns the
// monitor socket, so the socket's owner polls nothing more. Thread-safe:
// Proven may be called from any thread.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <zmq.hpp>

#include "diagnostics/log.hpp"

#include "os/mutex.hpp"
#include "os/wake_fd.hpp"
#include "wire/accepted_peers.hpp"
#include "wire/socket_monitor.hpp"

namespace fiber::wire {

class Admission {
 public:
  /// Watches router's handshakes and sets their time limit (call on
  /// router's thread, before it binds). Its thread calls on_accepted, when
  /// given, with each connection the socket accepts (its fd and peer), and
  /// on_closed with the descriptor of each that closes, in the order they
  /// happen. Throws zmq::error_t.
  Admission(zmq::context_t& context, zmq::socket_t& router,
            std::function<void(const PeerEvent&)> on_accepted = {},
            std::function<void(int fd)> on_closed = {});
  /// Stops the thread; before the context ends.
  ~Admission();
  Admission(const Admission&) = delete;
  Admission& operator=(const Admission&) = delete;

  /// A message came over the connection on fd (ZMQ_SRCFD; -1: unknown), so
  /// its handshake is done (libzmq's HANDSHAKE_SUCCEEDED event names no
  /// connection), and its address is one of the run's. One proven before
  /// its ACCEPTED event is read holds its place until its handshake time is
  /// up: more closed for a while, never fewer.
  void Proven(int fd);

 private:
  using Clock = std::chrono::steady_clock;
  struct Unproven {
    std::string address;  // the peer's without its port; "" when unknown
    Clock::time_point accepted;
    bool stranger = true;  // its address had proven no connection when it came
  };

  void Run();
  void HandleMonitor();
  /// Gives accepted a place; false, with why, when the caps leave none.
  [[nodiscard]] bool Hold(const PeerEvent& accepted, std::string* why);
  void ForgetExpired(Clock::time_point now) FIBER_REQUIRES(mu_);
  void Forget(std::uint32_t fd) FIBER_REQUIRES(mu_);
  void LogRefusal(const std::string& what);

  SocketMonitor monitor_;
  const std::size_t max_unproven_;  // T: in all
  os::Mutex mu_;
  std::unordered_map<std::uint32_t, Unproven> unproven_ FIBER_GUARDED_BY(mu_);  // by fd
  std::unordered_map<std::string, std::size_t> unproven_from_ FIBER_GUARDED_BY(mu_);  // by address
  std::unordered_set<std::string> proven_addresses_ FIBER_GUARDED_BY(mu_);  // at most T of them
  std::size_t from_strangers_ FIBER_GUARDED_BY(mu_) = 0;  // places of addresses not proven
  Clock::time_point last_expiry_ FIBER_GUARDED_BY(mu_);
  std::unordered_map<std::uint32_t, std::string> peers_;  // by fd: "ip:port", "" if unknown
  int handshake_failed_ = 0;  // the failure event awaiting its DISCONNECTED
  log::RateLimit refused_;
  std::function<void(const PeerEvent&)> on_accepted_;
  std::function<void(int fd)> on_closed_;
  os::WakeFd stop_;  // woken as this goes
  std::thread thread_;
};

}  // namespace fiber::wire
