// Limits that a master and its workers must agree on, in one place. Both
// ends check what they receive against these; settings are validated
// against them.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>

namespace fiber::wire {

/// The most tasks a worker may hold at once; FIBER_PREFETCH may not exceed it.
constexpr std::uint32_t kMaxCredit = 256;
/// A TASK message stops taking more tasks once it is this large.
constexpr std::size_t kMaxTaskMessageBytes = 4 << 20;
/// A worker sends its batched results once they are this large.
constexpr std::size_t kMaxResultBatchBytes = 1 << 20;
/// A message travels in ZeroMQ frames of at most this many bytes (see
/// frames.hpp); a socket drops any peer whose frame (handshake commands
/// included) is larger. So a peer that has not proven the run's key can make
/// a socket hold no more than about this much per connection (a CURVE
/// handshake command takes a few hundred bytes; wire/admission.hpp bounds
/// how many such connections it holds), while a frame is still large enough
/// that its per-frame costs vanish beside its bytes.
constexpr std::size_t kMaxFrameBytes = std::size_t{64} << 10;
/// How long a connection may take to prove the run's key before the master
/// closes it (ZMQ_HANDSHAKE_IVL; libzmq's default is 30 s). The CURVE
/// handshake is one round trip after the TCP connect; the rest is room for a
/// loaded machine or a slow pod network. A worker closed this way connects again.
constexpr std::chrono::seconds kHandshakeTimeout{5};
/// What CURVE adds to a frame (command name, nonce, MAC, flags), with room.
constexpr std::size_t kFrameOverheadBytes = 256;
/// A worker id is a ZeroMQ routing id: at most 255 bytes.
constexpr std::size_t kMaxWorkerIdBytes = 255;
/// The most a whole message (all its frames) may hold: above the largest
/// payload users send (hundreds of MB), below what would let one message
/// take the master's memory. A larger one is malformed, and its sender
/// faulty; a client refuses to send one.
constexpr std::size_t kMaxMessageBytes = std::size_t{1} << 30;

/// What one admitted peer may have the master hold for it at once: a
/// worker and its client connection (ID.client) count as one. Beyond it a
/// request gets REFUSED (master/peer_budget.hpp). The master's own
/// requests are not bounded.
/// Requests waiting for their answer: gets and polls, manager calls.
constexpr std::size_t kMaxPeerRequests = 1024;
/// Bytes of queue items it put that nobody has taken yet, of the
/// arguments of its manager calls in flight, of values it shared
/// (fiber::share) that are still held, and of its tasks' results the
/// program has not dropped (charged past the bound: its pool deals it no
/// more instead, master/pool_service.hpp), each of these also charged
/// kHeldOverheadBytes.
constexpr std::size_t kMaxPeerBytes = std::size_t{256} << 20;
/// What the master charges for each item, call or value it holds beside
/// its bytes: its view, its share of the block it came in, its place in a
/// queue. An empty item costs the master this much, so it counts.
constexpr std::size_t kHeldOverheadBytes = 64;
/// Shared objects it made: queues not yet closed and drained, locks, events
/// and semaphores (these live as long as the run), shared values held.
constexpr std::size_t kMaxPeerObjects = 1024;
/// Shared values it made that are still held: one descriptor of the
/// master's each (a sealed memfd).
constexpr std::size_t kMaxPeerDescriptors = 256;
/// Item files of its puts still held: one mapping of the master's each.
constexpr std::size_t kMaxPeerMappings = 1024;

struct PeerLimits {
  std::size_t requests = kMaxPeerRequests;
  std::size_t bytes = kMaxPeerBytes;
  std::size_t objects = kMaxPeerObjects;
  std::size_t descriptors = kMaxPeerDescriptors;
  std::size_t mappings = kMaxPeerMappings;
  /// All peers together. PeerBudget lowers them to a quarter of what this
  /// process may hold (os/descriptor_limit.hpp), and each peer's to a
  /// quarter of that, so that workers' values and files leave the run's
  /// connections, pools and files theirs.
  std::size_t all_descriptors = SIZE_MAX;
  std::size_t all_mappings = SIZE_MAX;
};

/// Calls of one process on one manager's link not yet answered; a
/// MANAGER_CALLS message holds at most this many (more is malformed).
constexpr std::size_t kMaxCallsInFlight = 1024;

/// What a connection may hold below ZeroMQ, where the master's per-peer
/// budget cannot see it (master/connection_backlog.hpp): bytes a peer sent
/// that the master has not read as whole messages (libzmq buffers a
/// message's frames until its last, however many), or bytes the master
/// handed ZeroMQ for it that its kernel has not acknowledged (a peer that
/// does not read). Past it, the connection is closed.
/// Room in the bound for what is neither a message nor the master's to
/// read: the kernel's socket buffers, libzmq's read batch, the handshake.
constexpr std::size_t kBacklogRoomBytes = std::size_t{32} << 20;
/// One whole message in transit, its frames' CURVE overhead, and the room:
/// a legitimate connection never holds more, since the master reads each
/// message as soon as its last frame is in.
constexpr std::size_t kMaxConnectionBacklogBytes =
    kMaxMessageBytes + (kMaxMessageBytes / kMaxFrameBytes + 1) * kFrameOverheadBytes +
    kBacklogRoomBytes;
/// All connections together: four whole messages in transit at once (a few
/// workers returning large results together) is more than legitimate runs
/// reach, and keeps the master within a few GiB however many peers it has.
/// Past it, the connection holding the most is closed.
constexpr std::size_t kMaxBacklogBytes = 4 * kMaxMessageBytes;
/// A connection is measured once the master has read or sent this much on
/// it since it last was (and every connection on each tick of the I/O loop):
/// one getsockopt(2) per 16 MiB keeps the check off the hot path.
constexpr std::size_t kBacklogCheckBytes = std::size_t{16} << 20;
/// What a ZMTP PING or PONG command takes on the wire with CURVE, with
/// room: libzmq 4.3 sends a PING of 7 bytes (a PONG of 5) in a CURVE
/// MESSAGE box of 33 more and a 2-byte frame header, 42 bytes at most. The
/// master cannot tell them from a message's frames, so it allows one of
/// each per heartbeat interval (the master PINGs every interval, a worker
/// less often).
constexpr std::size_t kHeartbeatCommandBytes = 64;

struct BacklogLimits {
  std::size_t connection = kMaxConnectionBacklogBytes;
  std::size_t total = kMaxBacklogBytes;
  std::size_t check_every = kBacklogCheckBytes;
};

/// Messages a socket queues for (or from) one peer before sending (or
/// reading) waits. Legitimate traffic never comes near: to a worker, one
/// TASK per task it holds at most (kMaxCredit) and a few control messages;
/// from it, one RESULT per task; to and from a client connection, a
/// REQUEST and a REPLY per request in flight (kMaxPeerRequests). A peer
/// that floods past it is read no faster than the master serves it.
constexpr int kHighWaterMark = 4 * (kMaxCredit + kMaxPeerRequests);

}  // namespace fiber::wire
