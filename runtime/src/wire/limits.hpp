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
/// included) is larger, so an unauthenticated peer can make the master hold
/// no more than about this much per connection (master/admission.hpp bounds
/// how many such connections it holds).
constexpr std::size_t kMaxFrameBytes = 1 << 20;
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
/// Bytes of queue items it put that nobody has taken yet, and of the
/// arguments of its manager calls in flight.
constexpr std::size_t kMaxPeerBytes = std::size_t{256} << 20;
/// Queues it made that are not yet closed and drained.
constexpr std::size_t kMaxPeerQueues = 1024;

struct PeerLimits {
  std::size_t requests = kMaxPeerRequests;
  std::size_t bytes = kMaxPeerBytes;
  std::size_t queues = kMaxPeerQueues;
};

/// Messages a socket queues for (or from) one peer before sending (or
/// reading) waits. Legitimate traffic never comes near: to a worker, one
/// TASK per task it holds at most (kMaxCredit) and a few control messages;
/// from it, one RESULT per task; to and from a client connection, a
/// REQUEST and a REPLY per request in flight (kMaxPeerRequests). A peer
/// that floods past it is read no faster than the master serves it.
constexpr int kHighWaterMark = 4 * (kMaxCredit + kMaxPeerRequests);

}  // namespace fiber::wire
