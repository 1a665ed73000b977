#include "support/scripted_peer.hpp"

#include <doctest/doctest.h>

#include "wire/codec.hpp"
#include "wire/frames.hpp"

namespace fiber::testing {

ScriptedPeer::ScriptedPeer(zmq::context_t& ctx, const std::string& endpoint, const std::string& id,
                           const wire::Credentials* keys, bool own_keys)
    : socket(ctx, zmq::socket_type::dealer) {
  socket.set(zmq::sockopt::linger, 0);
  socket.set(zmq::sockopt::routing_id, id);
  if (keys) {
    wire::Credentials other;
    std::string err;
    if (own_keys) REQUIRE(wire::Credentials::Generate(&other, &err));
    wire::MakeCurveClient(socket, (own_keys ? other : *keys).client_secret);
  }
  socket.connect(endpoint);
}

namespace {
wire::Credentials KeysOf(const backend::Launch& launch) {
  wire::Credentials keys;
  keys.client_secret = launch.bootstrap.client_secret;
  return keys;
}
}  // namespace

ScriptedPeer::ScriptedPeer(zmq::context_t& ctx, const backend::Launch& launch,
                           const std::string& suffix) {
  const wire::Credentials keys = KeysOf(launch);
  *this = ScriptedPeer(ctx, launch.bootstrap.master, launch.bootstrap.worker_id + suffix, &keys);
}

void ScriptedPeer::Send(zmq::message_t message) {
  REQUIRE(wire::SendMessage(socket, {}, std::move(message)));
}

zmq::message_t ScriptedPeer::Receive(int timeout_ms) {
  zmq::pollitem_t item{socket.handle(), 0, ZMQ_POLLIN, 0};
  zmq::message_t m;
  std::string err;
  if (zmq::poll(&item, 1, std::chrono::milliseconds(timeout_ms)) > 0)
    (void)wire::ReceiveMessage(socket, false, nullptr, &m, &err, zmq::recv_flags::dontwait);
  return m;
}

wire::Channel ScriptedPeer::Join(std::uint32_t credit) {
  Send(wire::Encode(wire::Hello{42}));
  wire::Welcome welcome;
  std::string err;
  const zmq::message_t answer = Receive(10000);
  REQUIRE_MESSAGE(wire::Decode(answer, &welcome, &err), err);
  Send(wire::Encode(wire::Ready{credit}, welcome.channel));
  return welcome.channel;
}

std::vector<wire::TaskView> ScriptedPeer::NextTasks(zmq::message_t* holder) {
  for (int i = 0; i < 100; ++i) {
    *holder = Receive(10000);
    wire::Header h;
    std::string err;
    REQUIRE(wire::ParseHeader(*holder, &h, &err));
    if (h.type != wire::Type::kTask) continue;
    std::vector<wire::TaskView> tasks;
    REQUIRE(wire::ReadTasks(*holder, &tasks, &err));
    return tasks;
  }
  FAIL("no TASK arrived");
  return {};
}

void ScriptedPeer::Answer(wire::Channel channel, std::uint64_t task,
                          const std::vector<std::string>& values) {
  wire::Writer w(wire::Type::kResult, channel);
  w.U32(1);
  wire::AppendResultHead(w, task, static_cast<std::uint32_t>(values.size()));
  for (const auto& v : values) wire::AppendOutcome(w, {wire::OutcomeKind::kValue, v, {}});
  Send(w.Finish());
}

wire::Reply ScriptedPeer::Ask(wire::Request request) {
  request.id = next_request_++;
  Send(wire::Encode(request));
  for (int i = 0; i < 100; ++i) {
    const zmq::message_t m = Receive(10000);
    if (m.size() == 0) break;
    wire::Reply reply;
    std::string err;
    if (wire::Decode(m, &reply, &err) && reply.id == request.id) return reply;
  }
  return {request.id, wire::Status::kLost, "no reply"};
}

std::uint64_t IdIn(const wire::Reply& reply) {
  std::uint64_t id = 0;
  REQUIRE(reply.status == wire::Status::kOk);
  REQUIRE(wire::DecodeU64(reply.body, &id));
  return id;
}

std::string RefusalIn(const zmq::message_t& message) {
  wire::Refuse refuse;
  std::string err;
  return wire::Decode(message, &refuse, &err) ? std::string(refuse.reason) : "";
}

}  // namespace fiber::testing
