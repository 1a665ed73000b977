// Who the connections a bound socket accepted come from. libzmq's v1
// monitor events name only the socket's own bound address, but
// ZMQ_EVENT_ACCEPTED carries the connection's fd, whose peer can be read
// while the connection lasts. A peer refused at once can be gone before its
// event is read, its fd number perhaps another connection's by then: such a
// peer stays unknown rather than misnamed.
#pragma once

#include <string>
#include <vector>

#include "wire/socket_monitor.hpp"

namespace fiber::wire {

/// A monitor event and, for ZMQ_EVENT_ACCEPTED, the connection's peer.
struct PeerEvent {
  SocketEvent event;
  std::string peer;  // "ip:port" ("[ip]:port" for IPv6); empty when unknown or not ACCEPTED
};

/// All the events waiting on monitor (of a bound TCP socket), in the order
/// libzmq sent them, with the peer of each accepted connection read from its
/// fd. A read counts only if no event shows the fd closed by the time it was
/// made: libzmq sends DISCONNECTED before it closes the fd, so the events
/// read after it are checked too. Call as soon as monitor is readable.
std::vector<PeerEvent> ReadWithPeers(SocketMonitor& monitor);

/// Ends the connection of accepted (an ACCEPTED event, its peer known) if
/// its fd still is that connection: shutdown(2), after which libzmq reads
/// the end of the stream and closes the fd itself (it owns it). Only the
/// bound socket's connections have its port as theirs, so a number reused
/// by any other descriptor is left alone: false then.
bool ShutDown(const PeerEvent& accepted);

}  // namespace fiber::wire
