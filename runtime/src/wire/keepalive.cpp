#include "wire/keepalive.hpp"

namespace fiber::wire {

void KeepAliveMaster(zmq::socket_t& socket, std::chrono::milliseconds interval,
                     std::chrono::milliseconds timeout) {
  socket.set(zmq::sockopt::heartbeat_ivl, static_cast<int>(interval.count()));
  socket.set(zmq::sockopt::heartbeat_timeout, static_cast<int>(timeout.count()));
  socket.set(zmq::sockopt::heartbeat_ttl, static_cast<int>(timeout.count()));
}

void KeepAliveWorker(zmq::socket_t& socket, std::chrono::milliseconds timeout) {
  socket.set(zmq::sockopt::heartbeat_ivl, static_cast<int>(timeout.count()));
  socket.set(zmq::sockopt::heartbeat_timeout, static_cast<int>(timeout.count()));
}

}  // namespace fiber::wire
