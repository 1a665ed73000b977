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

}  // namespace fiber::wire
