// How a message crosses a socket: as one ZeroMQ frame when it fits in
// kMaxFrameBytes, else as several, every one but the last exactly
// kMaxFrameBytes. Sockets refuse larger frames (ZMQ_MAXMSGSIZE), so a peer
// that has not passed the handshake can make its receiver hold little,
// while admitted peers still send payloads of any size.
#pragma once

#include <string>
#include <string_view>
#include <zmq.hpp>

namespace fiber::wire {

/// Sets the frame bound and the high-water marks (limits.hpp) on a socket of
/// the run.
void LimitFrames(zmq::socket_t& socket);

/// Why a message of this many bytes may not travel (more than
/// kMaxMessageBytes); "" when it may.
std::string MessageSizeFault(std::size_t bytes);

/// Sends message, after a routing-id frame when routing_id is not empty
/// (ROUTER). Never blocks; false when it could not be sent (peer gone).
[[nodiscard]] bool SendMessage(zmq::socket_t& socket, std::string_view routing_id,
                               zmq::message_t&& message);

enum class Receipt { kNone, kMessage, kMalformed };

/// What a received message took from its connection, for the master's
/// count of what connections hold below ZeroMQ (master/connection_backlog.hpp).
struct Arrival {
  int fd = -1;  // the connection's descriptor (ZMQ_SRCFD); -1 when unknown
  std::size_t bytes = 0, frames = 0;  // of its body, the routing id not counted
};

/// Receives one message and joins its frames into *message; with routed,
/// the first frame is the sender's routing id, into *routing_id. kNone when
/// nothing arrived (flags dontwait, the socket's receive timeout, or a signal);
/// kMalformed with *err when its frames are not laid out as above or hold
/// more than kMaxMessageBytes in all. *arrival, when given, says what it
/// took, malformed or not.
[[nodiscard]] Receipt ReceiveMessage(zmq::socket_t& socket, bool routed, std::string* routing_id,
                                     zmq::message_t* message, std::string* err,
                                     zmq::recv_flags flags = zmq::recv_flags::none,
                                     Arrival* arrival = nullptr);

}  // namespace fiber::wire
