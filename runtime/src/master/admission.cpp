#include "master/admission.hpp"

#include <sys/eventfd.h>
#include <unistd.h>

#include <utility>

#include "background_thread.hpp"
#include "log.hpp"
#include "master/accepted_peers.hpp"
#include "wire/poll.hpp"

namespace fiber::master {

namespace {
constexpr int kEvents = ZMQ_EVENT_ACCEPTED | ZMQ_EVENT_DISCONNECTED |
                        ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL | ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL;
}  // namespace

Admission::Admission(zmq::context_t& context, zmq::socket_t& router,
                     std::function<void(int fd)> on_closed)
    : monitor_(context, router, kEvents), on_closed_(std::move(on_closed)) {
  stop_fd_ = eventfd(0, EFD_CLOEXEC);
  if (stop_fd_ < 0) throw zmq::error_t();
  thread_ = StartBackgroundThread([this] { Run(); }, [](const std::string& what) {
    log::Error("stopped watching the run's connections: an internal error (" + what + ")");
  });
}

Admission::~Admission() {
  const std::uint64_t one = 1;
  if (::write(stop_fd_, &one, sizeof one) < 0) {
    // Cannot fail for an eventfd counter far from its limit.
  }
  thread_.join();
  ::close(stop_fd_);
}

void Admission::Run() {
  for (;;) {
    zmq::pollitem_t items[] = {
        {monitor_.handle(), 0, ZMQ_POLLIN, 0},
        {nullptr, stop_fd_, ZMQ_POLLIN, 0},
    };
    wire::Poll(items, 2, std::chrono::milliseconds(-1));
    if (items[1].revents & ZMQ_POLLIN) return;
    if (items[0].revents & ZMQ_POLLIN) HandleMonitor();
  }
}

// libzmq sends, per connection: ACCEPTED (its fd), then on a failed handshake
// HANDSHAKE_FAILED_* (no fd) at once followed by DISCONNECTED (the fd); with
// the master's one I/O thread no other event comes between those two. The
// event address is the master's own, so the peer comes from the fd.
void Admission::HandleMonitor() {
  for (const PeerEvent& e : ReadWithPeers(monitor_)) {
    const std::uint32_t fd = e.event.value;
    if (e.event.id == ZMQ_EVENT_ACCEPTED) {
      peers_[fd] = e.peer;
      if (!e.peer.empty()) log::Info("connection from " + e.peer);
    } else if (e.event.id == ZMQ_EVENT_DISCONNECTED) {
      on_closed_(static_cast<int>(fd));
      auto peer = peers_.extract(fd);
      const int failed = std::exchange(handshake_failed_, 0);
      const std::string who = !peer.empty() && !peer.mapped().empty()
                                  ? peer.mapped()
                                  : "a peer gone before its address could be read";
      // A connection that ends before its handshake (a worker killed as it
      // started, a port scan) was refused nothing: no news for the log.
      if (failed == ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL)
        log::Info("connection from " + who + " closed before its handshake finished");
      else if (failed)
        LogRefusal("from " + who + ": security handshake failed (not a fiber worker of this run)");
    } else {
      handshake_failed_ = static_cast<int>(e.event.id);
    }
  }
}

void Admission::LogRefusal(const std::string& what) {
  if (refused_.Allow())
    log::Warning("refused connection " + what + " [" + std::to_string(refused_.count()) +
                 " refused so far]");
}

}  // namespace fiber::master
