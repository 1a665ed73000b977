// A socket's connection events, read on a thread other than the socket's
// own: libzmq's socket monitor (event format v1, the only one without
// libzmq's DRAFT API), started on an inproc endpoint of its own and decoded.
// Used by wire::Admission (who failed a handshake) and worker::MasterWatch
// (is the master connected). cppzmq's monitor_t does not fit: it polls only
// its own socket, and Admission polls the monitor together with others.
#pragma once

#include <cstdint>
#include <string>
#include <zmq.hpp>

namespace fiber::wire {

/// One monitor event.
struct SocketEvent {
  std::uint16_t id = 0;     // ZMQ_EVENT_*
  std::uint32_t value = 0;  // by id: a connection's fd, an errno, a protocol error, a ZAP status
  /// The socket's endpoint: for a connection a bound socket accepted, the
  /// socket's own bound address, never the peer's.
  std::string address;
};

/// Construct on the monitored socket's thread (it sets the socket up); from
/// then on one other thread may poll and read it. Closing the monitored
/// socket ends the events.
class SocketMonitor {
 public:
  /// Reports socket's events in the mask events (ZMQ_EVENT_*); throws
  /// zmq::error_t.
  SocketMonitor(zmq::context_t& context, zmq::socket_t& socket, int events);

  /// For zmq::poll: readable while an event is waiting.
  void* handle() { return events_.handle(); }
  /// The next waiting event; false when none is.
  [[nodiscard]] bool Next(SocketEvent* event);

 private:
  zmq::socket_t events_;
};

}  // namespace fiber::wire
