#include "worker/master_watch.hpp"

#include <unistd.h>

#include <cstdio>

namespace fiber::worker {

namespace {
// How often the thread looks at stop_ when no event comes.
constexpr auto kPollStep = std::chrono::milliseconds(200);
}  // namespace

MasterWatch::MasterWatch(zmq::context_t& context, zmq::socket_t& dealer, std::string worker_id,
                         std::string master, std::chrono::milliseconds timeout)
    : events_(context, dealer, ZMQ_EVENT_HANDSHAKE_SUCCEEDED | ZMQ_EVENT_DISCONNECTED),
      worker_id_(std::move(worker_id)),
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
      std::fprintf(stderr, "fiber worker %s: lost the master at %s (not connected for %.1f s); exiting\n",
                   worker_id_.c_str(), master_.c_str(), timeout.count() / 1000.0);
      std::fflush(stderr);
      ::_exit(1);
    }
  }
}

}  // namespace fiber::worker
