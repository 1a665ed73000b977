// What each connection of the run's socket holds below ZeroMQ, where the
// master's per-peer budget (peer_budget.hpp) cannot see it, measured from
// the kernel's own counts (tcp_info):
// - in: bytes the peer sent that the master has not read as whole messages.
//   libzmq buffers the frames of a message until its last, however many,
//   so a peer that sets MORE on frame after frame would grow the master
//   without bound. Received bytes less those of the messages read (each
//   frame counted with wire::kFrameOverheadBytes of CURVE and ZMTP, more
//   than it takes, so the estimate errs low, by at most what was read
//   between two measurements: below zero it is taken as zero), less one
//   PING and one PONG per heartbeat interval since it last was zero, which
//   are not messages.
// - out: bytes of messages the master handed ZeroMQ for the peer that its
//   kernel has not acknowledged: a peer that does not read. Acknowledged
//   bytes include CURVE's overhead and the master's PINGs, so this errs low
//   too, and below zero is taken as zero.
// A connection past wire::BacklogLimits::connection either way is to be
// closed, and while all of them together pass total, the one holding the
// most. Counts in, decisions out: master/connection_watch reads the
// counters and closes. Not thread-safe: the dispatcher's I/O thread's.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "wire/accepted_peers.hpp"
#include "wire/limits.hpp"

namespace fiber::master {

/// A TCP connection's counters, as the kernel keeps them.
struct TcpCounts {
  std::uint64_t received = 0;  // tcpi_bytes_received
  std::uint64_t acked = 0;     // tcpi_bytes_acked
};

/// The counters of the TCP connection on fd; false when fd is none (closed,
/// or reused by a descriptor of another kind).
[[nodiscard]] bool ReadTcpCounts(int fd, TcpCounts* counts);

class ConnectionBacklog {
 public:
  using Clock = std::chrono::steady_clock;

  /// heartbeat_interval: how often the master PINGs each peer (and a worker
  /// PINGs less often), for the commands that are not messages.
  ConnectionBacklog(wire::BacklogLimits limits, std::chrono::milliseconds heartbeat_interval);

  /// The socket accepted a connection (its fd and peer); a number reused
  /// starts afresh. Messages read from it before are counted still.
  void Opened(const wire::PeerEvent& accepted, Clock::time_point now);
  /// Its connection closed: fd is forgotten, and the routing id on it.
  void Closed(int fd);
  /// The master read a message of bytes in frames from fd, sent under
  /// routing id id; true when fd is due a measurement.
  [[nodiscard]] bool Read(int fd, const std::string& id, std::size_t bytes, std::size_t frames);
  /// The master handed ZeroMQ a message of bytes for routing id id; the fd
  /// due a measurement, or -1.
  [[nodiscard]] int Sent(const std::string& id, std::size_t bytes);

  /// A connection holding more than it may.
  struct Excess {
    wire::PeerEvent accepted;  // its fd and peer, to close it by
    std::string id;      // its routing id; "" before its first whole message
    std::string what;    // what it holds, and the bound it passed
  };
  /// Takes fd's counters; the excess when fd holds more than its bound.
  /// A connection returned is closing: it counts no more, and is not
  /// returned again.
  std::optional<Excess> Measure(int fd, const TcpCounts& counts, Clock::time_point now);
  /// While all connections together hold more than the total bound: the one
  /// holding the most (closing from then on).
  std::optional<Excess> OverTotal();

  /// The connections open and not closing.
  std::vector<int> Connections() const;
  /// What fd held at its last measurement.
  struct Held {
    std::size_t in = 0, out = 0;
  };
  Held Of(int fd) const;
  /// What all connections held at their last measurement.
  std::size_t total() const { return total_; }

 private:
  struct Connection {
    wire::PeerEvent accepted;  // event.value < 0 until its ACCEPTED is seen
    std::string id;
    std::uint64_t consumed = 0;  // received bytes the master's reads explain
    Clock::time_point quiet_since;  // in was last zero
    std::uint64_t sent = 0;      // bytes handed to ZeroMQ, less any known acked
    std::int64_t acked_offset = 0;  // acked bytes already set against sent
    std::size_t since_measured = 0;
    Held held;
    bool opened = false, closing = false;
  };
  Connection& At(int fd);
  bool Due(Connection& c, std::size_t bytes);
  Excess Close(Connection& c, std::string what);

  const wire::BacklogLimits limits_;
  const std::chrono::milliseconds heartbeat_interval_;
  std::unordered_map<int, Connection> connections_;
  std::unordered_map<std::string, int> fd_of_;  // by routing id
  std::size_t total_ = 0;  // of held, over connections not closing
};

}  // namespace fiber::master
