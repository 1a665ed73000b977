#include "worker/master_watch.hpp"

#include <sys/eventfd.h>
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
      timeout_ms_(timeout.count()),
      wake_fd_(::eventfd(0, EFD_CLOEXEC)) {
  if (!wake_fd_) throw zmq::error_t();
  thread_ = StartBackgroundThread([this] { Run(); }, [this](const std::string& what) {
    log::Error("stopped watching the connection to the master at " + master_ + ": an internal error (" +
               what + ")");
  });
}

MasterWatch::~MasterWatch() {
  stop_ = true;
  Wake();
  thread_.join();
}

void MasterWatch::SetTimeout(std::chrono::milliseconds timeout) {
  timeout_ms_ = timeout.count();
  Wake();
}

void MasterWatch::Wake() {
  const std::uint64_t one = 1;
  if (::write(wake_fd_.get(), &one, sizeof one) < 0) {
    // Cannot fail for an eventfd counter far from its limit.
  }
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
                               {nullptr, wake_fd_.get(), ZMQ_POLLIN, 0}};
    wire::Poll(items, 2, wait);
    if (items[1].revents & ZMQ_POLLIN) {
      std::uint64_t count = 0;
      (void)!::read(wake_fd_.get(), &count, sizeof count);
    }
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
