#include "wire/socket_monitor.hpp"

#include <atomic>
#include <cstring>
#include <zmq_addon.hpp>

namespace fiber::wire {

namespace {
// Numbers the endpoints, so that no two monitors of a process share one.
std::atomic<std::uint64_t> next_monitor{1};
}  // namespace

SocketMonitor::SocketMonitor(zmq::context_t& context, zmq::socket_t& socket, int events) {
  const std::string endpoint = "inproc://fiber-monitor-" + std::to_string(next_monitor++);
  if (zmq_socket_monitor(socket.handle(), endpoint.c_str(), events) != 0) throw zmq::error_t();
  events_ = zmq::socket_t(context, zmq::socket_type::pair);
  events_.set(zmq::sockopt::linger, 0);
  // No limit on waiting events: past one, libzmq drops them, and a burst of
  // accepts would leave wire::Admission counting connections long closed.
  events_.set(zmq::sockopt::rcvhwm, 0);
  events_.connect(endpoint);
}

bool SocketMonitor::Next(SocketEvent* event) {
  for (;;) {
    zmq::multipart_t frames;
    if (!frames.recv(events_, ZMQ_DONTWAIT)) return false;
    // v1: the id (2 bytes) and value (4 bytes) in one frame, the address in the next.
    if (frames.size() != 2 || frames[0].size() < 6) continue;
    const auto* data = static_cast<const char*>(frames[0].data());
    std::memcpy(&event->id, data, sizeof event->id);
    std::memcpy(&event->value, data + sizeof event->id, sizeof event->value);
    event->address = frames[1].to_string();
    return true;
  }
}

}  // namespace fiber::wire
