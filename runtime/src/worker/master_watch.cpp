#include "worker/master_watch.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <zmq_addon.hpp>

#include "log.hpp"
#include "worker/serve_loop.hpp"

namespace fiber::worker {

namespace {
constexpr const char* kEndpoint = "inproc://fiber-master-watch";
// How often the thread looks at stop_ when no event comes.
constexpr auto kPollStep = std::chrono::milliseconds(200);
}  // namespace

MasterWatch::MasterWatch(zmq::context_t& context, zmq::socket_t& dealer, std::string master,
                         std::chrono::milliseconds timeout)
    : master_(std::move(master)), timeout_ms_(timeout.count()) {
  if (zmq_socket_monitor(dealer.handle(), kEndpoint,
                         ZMQ_EVENT_HANDSHAKE_SUCCEEDED | ZMQ_EVENT_DISCONNECTED) != 0)
    throw zmq::error_t();
  events_ = zmq::socket_t(context, zmq::socket_type::pair);
  events_.set(zmq::sockopt::linger, 0);
  events_.connect(kEndpoint);
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
    while (item.revents & ZMQ_POLLIN) {
      zmq::multipart_t event;
      if (!event.recv(events_, ZMQ_DONTWAIT)) break;
      if (event.empty() || event[0].size() < 2) continue;
      std::uint16_t id = 0;
      std::memcpy(&id, event[0].data(), sizeof id);
      if (id == ZMQ_EVENT_HANDSHAKE_SUCCEEDED) {
        up = true;
      } else if (id == ZMQ_EVENT_DISCONNECTED && up) {
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
