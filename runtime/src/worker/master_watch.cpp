#include "worker/master_watch.hpp"

#include <unistd.h>

#include <cstdio>

#include "log.hpp"
#include "worker/serve_loop.hpp"

namespace fiber::worker {

namespace {
// How often the thread looks at stop_ when no event comes.
constexpr auto kPollStep = std::chrono::milliseconds(200);
}  // namespace

MasterWatch::MasterWatch(zmq::context_t& context, zmq::socket_t& dealer, std::string master,
                         std::chrono::milliseconds timeout)
    : events_(context, dealer, ZMQ_EVENT_HANDSHAKE_SUCCEEDED | ZMQ_EVENT_DISCONNECTED),
      master_(std::move(master)),
      timeout_ms_(timeout.count()) {
  thread_ = std::thread([this] { Run(); });
}

MasterWatch::~MasterWatch() {
  stop_ = true;
  thread_.join();
}

void MasterWatch::Run() {
  using Clock = std::chrono::steady_clock;
  bool up = false;
  auto down_since = Clock::now();
  while (!stop_) {
    zmq::pollitem_t item{events_.handle(), 0, ZMQ_POLLIN, 0};
    zmq::poll(&item, 1, kPollStep);
    wire::SocketEvent event;
    while (events_.Next(&event)) {
      if (event.id == ZMQ_EVENT_HANDSHAKE_SUCCEEDED) {
        up = true;
      } else if (event.id == ZMQ_EVENT_DISCONNECTED && up) {
        up = false;
        down_since = Clock::now();
      }
    }
    const auto timeout = std::chrono::milliseconds(timeout_ms_.load());
    if (!up && !stop_ && Clock::now() - down_since > timeout) {
      log::Error("lost the master at " + master_ + " (not connected for " +
                 log::Seconds(timeout) + "); exiting");
      ::_exit(kMasterLost);
    }
  }
}

}  // namespace fiber::worker
