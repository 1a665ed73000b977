#include "wire/poll.hpp"

#include <cerrno>

namespace fiber::wire {

int Poll(zmq::pollitem_t* items, std::size_t count, std::chrono::milliseconds timeout) {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + timeout;
  for (auto left = timeout;;) {
    const int ready = zmq_poll(items, static_cast<int>(count), static_cast<long>(left.count()));
    if (ready >= 0) return ready;
    if (zmq_errno() != EINTR) throw zmq::error_t();
    if (timeout.count() < 0) continue;
    left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) return 0;
  }
}

}  // namespace fiber::wire
