#include "worker/master_watch.hpp"

#include <unistd.h>

#include <cstdio>

#include "diagnostics/log.hpp"
#include "os/background_thread.hpp"
#include "wire/poll.hpp"
#include "worker/serve_loop.hpp"

namespace fiber::worker {

MasterWatch::MasterWatch(zmq::context_t& context, zmq::socket_t& dealer, std::string master,
                         std::chrono::milliseconds timeout)
    : events_(context, dealer, ZMQ_EVENT_HANDSHAKE_SUCCEEDED | ZMQ_EVENT_DISCONNECTED),
      master_(std::move(master)),
      timeout_ms_(timeout.count()) {
  std::string err;
  if (!wake_.Open(&err)) throw zmq::error_t();
  thread_ = StartBackgroundThread([this] { Run(); }, [this](const std::string& what) {
    log::Error("stopped watching the connection to the master at " + master_ + ": an internal error (" +
               what + ")");
  });
}

MasterWatch::~MasterWatch() {
  stop_ = true;
  wake_.Wake();
  thread_.join();
}

void MasterWatch::SetTimeout(std::chrono::milliseconds timeout) {
  timeout_ms_ = timeout.count();
  wake_.Wake();
}

// Sleeps until an event, a wake-up or the deadline of a connection that is
// down: a worker waiting for tasks must not wake for nothing, since a
// thousand such wake-ups a second cost a core.
void MasterWatch::Run() {
  using Clock = std::chrono::steady_clock;
  bool up = false;
  auto down_since = Clock::now();
  while (!stop_) {
    const auto timeout = std::chrono::milliseconds(timeout_ms_.load());
    auto wait = std::chrono::milliseconds(-1);
    if (!up) {
      const auto left = down_since + timeout - Clock::now();
      if (left <= Clock::duration::zero()) {
        log::Error("lost the master at " + master_ + " (not connected for " +
                   log::Seconds(timeout) + "); exiting");
        ::_exit(kMasterLost);
      }
      wait = std::chrono::ceil<std::chrono::milliseconds>(left);
    }
    zmq::pollitem_t items[] = {{events_.handle(), 0, ZMQ_POLLIN, 0},
                               {nullptr, wake_.fd(), ZMQ_POLLIN, 0}};
    wire::Poll(items, 2, wait);
    if (items[1].revents & ZMQ_POLLIN) wake_.Clear();
    wire::SocketEvent event;
    while (events_.Next(&event)) {
      if (event.id == ZMQ_EVENT_HANDSHAKE_SUCCEEDED) {
        up = true;
      } else if (event.id == ZMQ_EVENT_DISCONNECTED && up) {
        up = false;
        down_since = Clock::now();
      }
    }
  }
}

}  // namespace fiber::worker
