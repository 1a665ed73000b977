#include "worker/direct_calls.hpp"

#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include "diagnostics/log.hpp"
#include "os/descriptor.hpp"
#include "os/descriptor_limit.hpp"
#include "wire/credentials.hpp"
#include "wire/frames.hpp"
#include "wire/limits.hpp"

namespace fiber::worker {

namespace {

// "tcp://host:port" -> host (brackets of an IPv6 address kept) and port.
bool SplitEndpoint(const std::string& endpoint, std::string* host, std::string* port) {
  const std::string scheme = "tcp://";
  const auto colon = endpoint.rfind(':');
  if (endpoint.compare(0, scheme.size(), scheme) != 0 || colon == std::string::npos ||
      colon <= scheme.size())
    return false;
  *host = endpoint.substr(scheme.size(), colon - scheme.size());
  *port = endpoint.substr(colon + 1);
  return true;
}

// This machine's address on its route to endpoint's host: what a connected
// UDP socket is given, no packet sent. Other workers near the master reach
// it there; a worker on a laptop the manager's network cannot see does not,
// and its caller falls back to the master.
bool AddressToward(const std::string& endpoint, std::string* address, std::string* err) {
  std::string host, port;
  if (!SplitEndpoint(endpoint, &host, &port)) {
    *err = "the master's endpoint " + endpoint + " is not tcp://host:port";
    return false;
  }
  if (host.size() > 2 && host.front() == '[') host = host.substr(1, host.size() - 2);
  addrinfo hints{};
  hints.ai_socktype = SOCK_DGRAM;
  addrinfo* found = nullptr;
  if (const int e = ::getaddrinfo(host.c_str(), port.c_str(), &hints, &found); e != 0) {
    *err = "cannot resolve " + host + ": " + ::gai_strerror(e);
    return false;
  }
  std::unique_ptr<addrinfo, void (*)(addrinfo*)> owned(found, ::freeaddrinfo);
  os::Descriptor fd(::socket(found->ai_family, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  sockaddr_storage local{};
  socklen_t size = sizeof local;
  char name[NI_MAXHOST];
  if (!fd || ::connect(fd.get(), found->ai_addr, found->ai_addrlen) != 0 ||
      ::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&local), &size) != 0 ||
      ::getnameinfo(reinterpret_cast<sockaddr*>(&local), size, name, sizeof name, nullptr, 0,
                    NI_NUMERICHOST) != 0) {
    *err = "cannot find this machine's address toward " + host;
    return false;
  }
  *address = local.ss_family == AF_INET6 ? "[" + std::string(name) + "]" : name;
  return true;
}

}  // namespace

DirectCallServer::DirectCallServer(zmq::context_t& context, wire::Channel channel,
                                   std::string function)
    : router_(context, zmq::socket_type::router), channel_(channel), function_(std::move(function)) {}

std::unique_ptr<DirectCallServer> DirectCallServer::Open(zmq::context_t& context, const Bootstrap& b,
                                                         wire::Channel channel, std::string function,
                                                         std::string* err) {
  std::string address;
  if (!AddressToward(b.master, &address, err)) return nullptr;
  std::unique_ptr<DirectCallServer> s(new DirectCallServer(context, channel, std::move(function)));
  os::RaiseDescriptorLimit();  // as the master does: each connection to it takes one
  try {
    s->router_.set(zmq::sockopt::linger, 0);  // an answer to a caller gone is dropped
    wire::LimitFrames(s->router_);
    wire::MakeCurveServer(s->router_, b.client_secret);
    s->admission_ = std::make_unique<wire::Admission>(context, s->router_);
    if (address.front() == '[') s->router_.set(zmq::sockopt::ipv6, 1);
    s->router_.bind("tcp://" + address + ":*");
    s->endpoint_ = s->router_.get(zmq::sockopt::last_endpoint);
    s->fd_ = s->router_.get(zmq::sockopt::fd);
  } catch (const std::exception& e) {
    *err = "cannot listen on " + address + ": " + e.what();
    return nullptr;
  }
  std::string host, port;
  if (!b.manager_host.empty() && SplitEndpoint(s->endpoint_, &host, &port))
    s->endpoint_ = "tcp://" + b.manager_host + ":" + port;
  return s;
}

bool DirectCallServer::Next(Calls* in) {
  for (;;) {
    zmq::message_t message;
    std::string err;
    wire::Request request;
    wire::Arrival arrival;
    const auto receipt = wire::ReceiveMessage(router_, true, &in->peer, &message, &err,
                                              zmq::recv_flags::dontwait, &arrival);
    if (receipt == wire::Receipt::kNone) return false;
    admission_->Proven(arrival.fd);
    if (receipt == wire::Receipt::kMalformed || !wire::Decode(message, &request, &err)) {
      log::Warning("ignored a malformed call from '" + in->peer + "': " + err);
      continue;
    }
    message.rebuild();  // the request holds its bytes now: one copy, not two
    const std::uint64_t id = request.id;
    if (request.object != channel_) {
      Reply(in->peer, id, wire::Status::kRefused,
            "this is manager " + std::to_string(channel_) + ", not " + std::to_string(request.object));
      continue;
    }
    if (request.op == wire::Op::kManagerHello) {
      Reply(in->peer, id, wire::Status::kOk, {});
      continue;
    }
    in->calls.clear();
    in->batch.reset();
    std::vector<wire::CallView> calls;
    if (request.op == wire::Op::kManagerCalls) {
      in->batch = id;
      if (!wire::DecodeCalls(request.body, &calls)) {
        Reply(in->peer, id, wire::Status::kRefused,
              "a malformed MANAGER_CALLS: a call cut short, or more than " +
                  std::to_string(wire::kMaxCallsInFlight) + " calls");
        continue;
      }
    } else if (request.op == wire::Op::kManagerCall) {
      calls.push_back({id, request.body});
    }
    bool served = !calls.empty();
    in->calls.reserve(calls.size());
    for (const wire::CallView& call : calls)
      if (!(served = Serves(call, &in->calls.emplace_back()))) break;
    if (served) return true;
    Reply(in->peer, id, wire::Status::kRefused,
          "a manager answers method calls only");
  }
}

bool DirectCallServer::Serves(const wire::CallView& view, Call* call) const {
  call->id = view.id;
  return wire::DecodePair(view.body, &call->function, &call->args) && call->function == function_;
}

void DirectCallServer::Answer(const Calls& in, const std::vector<wire::OutcomeView>& outcomes) {
  auto reply = [](const wire::OutcomeView& outcome, std::string* raised) -> std::pair<wire::Status, std::string_view> {
    switch (outcome.kind) {
      case wire::OutcomeKind::kValue: return {wire::Status::kOk, outcome.value};
      case wire::OutcomeKind::kRaised:
        *raised = wire::EncodePair(std::string(outcome.raised.type), std::string(outcome.raised.message));
        return {wire::Status::kRaised, *raised};
      case wire::OutcomeKind::kNotRegistered: return {wire::Status::kNotRegistered, outcome.value};
    }
    return {wire::Status::kLost, {}};
  };
  std::string raised;
  if (!in.batch) {
    const auto [status, body] = reply(outcomes.front(), &raised);
    return Reply(in.peer, in.calls.front().id, status, body);
  }
  std::string replies;
  for (std::size_t i = 0; i < in.calls.size(); ++i) {
    const auto [status, body] = reply(outcomes[i], &raised);
    wire::AppendReply(&replies, in.calls[i].id, status, body);
  }
  Reply(in.peer, *in.batch, wire::Status::kOk, replies);
}

void DirectCallServer::Reply(const std::string& peer, std::uint64_t id, wire::Status status,
                             std::string_view body) {
  // Fails only for a caller gone, whose calls are lost with it.
  (void)wire::SendMessage(router_, peer, wire::EncodeReply(id, status, body));
}

}  // namespace fiber::worker
