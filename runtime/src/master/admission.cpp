#include "master/admission.hpp"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cstring>
#include <zmq_addon.hpp>

#include "log.hpp"

namespace fiber::master {

namespace {
std::atomic<std::uint64_t> next_monitor_id{1};
}

Admission::Admission(zmq::context_t& context, zmq::socket_t& router,
                     const std::string& client_public)
    : zap_(context, zmq::socket_type::rep) {
  zap_.set(zmq::sockopt::linger, 0);
  zap_.bind("inproc://zeromq.zap.01");
  zmq_z85_decode(client_key_, client_public.c_str());
  const std::string endpoint = "inproc://fiber-admission-" + std::to_string(next_monitor_id++);
  if (zmq_socket_monitor(router.handle(), endpoint.c_str(),
                         ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL |
                             ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL |
                             ZMQ_EVENT_HANDSHAKE_FAILED_AUTH) != 0)
    throw zmq::error_t();
  monitor_ = zmq::socket_t(context, zmq::socket_type::pair);
  monitor_.set(zmq::sockopt::linger, 0);
  monitor_.connect(endpoint);
  stop_fd_ = eventfd(0, EFD_CLOEXEC);
  if (stop_fd_ < 0) throw zmq::error_t();
  thread_ = std::thread([this] { Run(); });
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
        {zap_.handle(), 0, ZMQ_POLLIN, 0},
        {monitor_.handle(), 0, ZMQ_POLLIN, 0},
        {nullptr, stop_fd_, ZMQ_POLLIN, 0},
    };
    zmq::poll(items, 3, std::chrono::milliseconds(-1));
    if (items[2].revents & ZMQ_POLLIN) return;
    if (items[0].revents & ZMQ_POLLIN) HandleZap();
    if (items[1].revents & ZMQ_POLLIN) HandleMonitor();
  }
}

void Admission::HandleZap() {
  // ZAP request: version, request id, domain, address, routing id,
  // mechanism, credentials... (RFC 27).
  zmq::multipart_t request(zap_);
  if (request.size() < 6) {
    log::Warning("malformed ZAP request ignored");
    zmq::multipart_t reply;
    reply.addstr("1.0");
    reply.addstr(request.size() > 1 ? request[1].to_string() : "");
    reply.addstr("500");
    reply.addstr("malformed request");
    reply.addstr("");
    reply.addstr("");
    reply.send(zap_);
    return;
  }
  const std::string address = request[3].to_string();
  const std::string mechanism = request[5].to_string();
  bool ok = mechanism == "CURVE" && request.size() >= 7 && request[6].size() == 32 &&
            std::memcmp(request[6].data(), client_key_, 32) == 0;
  zmq::multipart_t reply;
  reply.addstr("1.0");
  reply.addstr(request[1].to_string());
  reply.addstr(ok ? "200" : "400");
  reply.addstr(ok ? "OK" : "not a worker of this run");
  reply.addstr("");
  reply.addstr("");
  reply.send(zap_);
  if (!ok)
    LogRefusal("from " + address + ": its " + mechanism + " key is not this run's");
}

void Admission::HandleMonitor() {
  zmq::multipart_t event(monitor_);
  if (event.size() < 2 || event[0].size() < 6) return;
  std::uint16_t id = 0;
  std::memcpy(&id, event[0].data(), sizeof id);
  const std::string address = event[1].to_string();
  // AUTH failures were logged by the ZAP handler already.
  if (id == ZMQ_EVENT_HANDSHAKE_FAILED_AUTH) return;
  LogRefusal("from " + address + ": security handshake failed (not a fiber worker of this run)");
}

void Admission::LogRefusal(const std::string& what) {
  ++refused_;
  if (refused_ <= 10 || refused_ % 1000 == 0)
    log::Warning("refused connection " + what + " [" + std::to_string(refused_) +
                 " refused so far]");
}

}  // namespace fiber::master
