#include "wire/admission.hpp"

#include <algorithm>
#include <utility>

#include "diagnostics/log.hpp"
#include "os/background_thread.hpp"
#include "os/descriptor_limit.hpp"
#include "os/mutex.hpp"
#include "wire/limits.hpp"
#include "wire/poll.hpp"

namespace fiber::wire {

namespace {
constexpr int kEvents = ZMQ_EVENT_ACCEPTED | ZMQ_EVENT_DISCONNECTED |
                        ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL | ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL;

// A place is given back once libzmq has surely closed a connection that did
// not prove the key: its timer starts a little after the ACCEPTED event.
constexpr auto kPlaceHeld = kHandshakeTimeout + std::chrono::seconds(1);
// Places past their time are looked for at most this often, so that a flood
// at the cap costs no scan of every place per connection.
constexpr auto kExpiryInterval = std::chrono::milliseconds(100);

std::size_t MaxUnproven() { return std::clamp<std::size_t>(os::DescriptorLimit() / 4, 16, 8192); }

// The address of "ip:port" or "[ip]:port"; "" for "".
std::string AddressOf(const std::string& peer) {
  const auto colon = peer.rfind(':');
  return colon == std::string::npos ? "" : peer.substr(0, colon);
}
}  // namespace

Admission::Admission(zmq::context_t& context, zmq::socket_t& router,
                     std::function<void(const PeerEvent&)> on_accepted,
                     std::function<void(int fd)> on_closed)
    : monitor_(context, router, kEvents),
      max_unproven_(MaxUnproven()),
      on_accepted_(std::move(on_accepted)),
      on_closed_(std::move(on_closed)) {
  router.set(zmq::sockopt::handshake_ivl,
             static_cast<int>(std::chrono::milliseconds(kHandshakeTimeout).count()));
  std::string err;
  if (!stop_.Open(&err)) throw zmq::error_t();
  thread_ = StartBackgroundThread([this] { Run(); }, [](const std::string& what) {
    log::Error("stopped watching the run's connections: an internal error (" + what + ")");
  });
}

Admission::~Admission() {
  stop_.Wake();
  thread_.join();
}

void Admission::Run() {
  for (;;) {
    zmq::pollitem_t items[] = {
        {monitor_.handle(), 0, ZMQ_POLLIN, 0},
        {nullptr, stop_.fd(), ZMQ_POLLIN, 0},
    };
    Poll(items, 2, std::chrono::milliseconds(-1));
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
      if (on_accepted_) on_accepted_(e);
      std::string why;
      if (!Hold(e, &why)) {
        // An unknown peer may be gone, its fd another's: not ours to end.
        if (!e.peer.empty()) ShutDown(e);
        LogRefusal("from " + (e.peer.empty() ? std::string("a peer gone already") : e.peer) +
                   ": " + why);
      }
    } else if (e.event.id == ZMQ_EVENT_DISCONNECTED) {
      {
        os::MutexLock lock(mu_);
        Forget(fd);
      }
      if (on_closed_) on_closed_(static_cast<int>(fd));
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

void Admission::Proven(int fd) {
  if (fd < 0) return;
  os::MutexLock lock(mu_);
  const auto it = unproven_.find(static_cast<std::uint32_t>(fd));
  if (it == unproven_.end()) return;
  // Bounded: a flood of the run's own peers from ever more addresses is
  // not what this guards against.
  if (!it->second.address.empty() && proven_addresses_.size() < max_unproven_)
    proven_addresses_.insert(it->second.address);
  Forget(it->first);
}

// The newest connection is the one closed: those held already may be
// workers halfway through their handshake, and a worker closed connects
// again.
bool Admission::Hold(const PeerEvent& accepted, std::string* why) {
  os::MutexLock lock(mu_);
  const auto now = Clock::now();
  Forget(accepted.event.value);  // a number whose connection closed unseen
  ForgetExpired(now);
  const std::string address = AddressOf(accepted.peer);
  const bool stranger = address.empty() || proven_addresses_.count(address) == 0;
  const auto held = unproven_from_.find(address);
  const std::size_t from_address = held == unproven_from_.end() ? 0 : held->second;
  const std::string named = address.empty() ? std::string("peers gone already") : address;
  if (from_address >= (stranger ? max_unproven_ / 8 : max_unproven_ / 2))
    *why = std::to_string(from_address) + " connections from " + named +
           " have not finished their handshake";
  else if (stranger && from_strangers_ >= max_unproven_ / 2)
    *why = std::to_string(from_strangers_) +
           " connections from addresses that no peer of the run came from have not finished "
           "their handshake";
  else if (unproven_.size() >= max_unproven_)
    *why = std::to_string(unproven_.size()) + " connections have not finished their handshake";
  else {
    unproven_[accepted.event.value] = {address, now, stranger};
    ++unproven_from_[address];
    from_strangers_ += stranger;
    return true;
  }
  return false;
}

void Admission::ForgetExpired(Clock::time_point now) {
  if (now - last_expiry_ < kExpiryInterval) return;
  last_expiry_ = now;
  for (auto it = unproven_.begin(); it != unproven_.end();) {
    const auto next = std::next(it);
    if (now - it->second.accepted >= kPlaceHeld) Forget(it->first);
    it = next;
  }
}

void Admission::Forget(std::uint32_t fd) {
  const auto it = unproven_.find(fd);
  if (it == unproven_.end()) return;
  const auto from = unproven_from_.find(it->second.address);
  if (from != unproven_from_.end() && --from->second == 0) unproven_from_.erase(from);
  from_strangers_ -= it->second.stranger;
  unproven_.erase(it);
}

void Admission::LogRefusal(const std::string& what) {
  if (refused_.Allow())
    log::Warning("refused connection " + what + " [" + std::to_string(refused_.count()) +
                 " refused so far]");
}

}  // namespace fiber::wire
