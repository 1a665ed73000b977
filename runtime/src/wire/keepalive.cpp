#include "wire/keepalive.hpp"

namespace fiber::wire {

void KeepAlive(zmq::socket_t& socket, std::chrono::milliseconds timeout, bool with_ttl) {
  const int ms = static_cast<int>(timeout.count());
  socket.set(zmq::sockopt::heartbeat_ivl, std::max(1, ms / 2));
  socket.set(zmq::sockopt::heartbeat_timeout, ms);
  if (with_ttl) socket.set(zmq::sockopt::heartbeat_ttl, ms);
}

}  // namespace fiber::wire
