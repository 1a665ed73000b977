// What a connection may hold below ZeroMQ, end to end: a worker holding
// the run's key that sends a message that never ends, or asks for replies
// it never reads, is cut off at the bound, and the run goes on. Workers are
// played by the test (test/support) against an in-process master; the
// accounting alone is connection_backlog_test's.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>

#include "support/eventually.hpp"
#include "support/frame_gate.hpp"
#include "support/scripted_peer.hpp"
#include "support/stderr_capture.hpp"
#include "support/test_master.hpp"
#include "support/told.hpp"
#include "wire/credentials.hpp"
#include "wire/limits.hpp"
#include "wire/frames.hpp"
#include "wire/limits.hpp"
#include "wire/request.hpp"

using fiber::testing::Eventually;
using fiber::testing::FrameGate;
using fiber::testing::IdIn;
using fiber::testing::ScriptedBackend;
using fiber::testing::ScriptedPeer;
using fiber::testing::StderrCapture;
using fiber::testing::TestMaster;
using fiber::wire::Op;
using fiber::wire::Request;

namespace {

constexpr std::size_t kMiB = std::size_t{1} << 20;
// What the master charges for each item beside its bytes.
constexpr std::size_t kEach = fiber::wire::kHeldOverheadBytes;
// What a connection may hold below ZeroMQ, low so the tests stay quick.
const fiber::wire::BacklogLimits kLowBacklog{.connection = 8 * kMiB, .total = 64 * kMiB,
                                             .check_every = kMiB};

// A peer held partway through a message, or not reading, answers no PING:
// heartbeats that time out only past the tests' hang guards keep a loaded
// machine from ending its connection before the bound does.
fiber::config::Settings SlowHeartbeats() {
  fiber::config::Settings settings;
  settings.heartbeat_interval = std::chrono::seconds(60);
  settings.heartbeat_timeout = std::chrono::seconds(180);
  return settings;
}

bool Killed(ScriptedBackend::State& state, const std::string& id) {
  std::lock_guard<std::mutex> lock(state.mu);
  return std::find(state.killed.begin(), state.killed.end(), id) != state.killed.end();
}

// What all the master's connections held below ZeroMQ at their last measurement.
std::size_t Backlog(TestMaster& master) {
  std::size_t total = 0;
  master.OnIoThread([&] { total = master.dispatcher->backlog().total(); });
  return total;
}

}  // namespace

TEST_CASE("a worker sending a message that never ends is cut off at the bound; the run goes on") {
  StderrCapture log;
  const auto bound = kLowBacklog;
  auto state = std::make_shared<ScriptedBackend::State>();
  auto others = std::make_shared<ScriptedBackend::State>();
  TestMaster master({}, bound, SlowHeartbeats());
  const auto channel = master.AddPool(1, state);
  const auto other_channel = master.AddPool(1, others);
  const auto launch = ScriptedBackend::WaitForLaunch(*state, 0);
  zmq::context_t ctx;
  // The hostile worker reaches the master through a gate that can stop its
  // message partway, as a peer speaking ZMTP itself could.
  FrameGate gate(launch.bootstrap.master);
  ScriptedPeer hostile(ctx, gate.endpoint(), launch.bootstrap.worker_id, &master.keys);
  hostile.Join();
  ScriptedPeer other(ctx, ScriptedBackend::WaitForLaunch(*others, 0));
  other.Join();

  // A message of 64 MiB in frames, each with MORE but the last, which
  // never comes. Its frames pass a MiB at a time, each once the master has
  // measured the MiB before, so what it holds at the cut says where the
  // bound is, however fast the machine.
  REQUIRE(Eventually([&] { return gate.passed() == 4; }));  // CURVE HELLO, INITIATE; HELLO, READY
  gate.PassUpTo(4);
  constexpr std::size_t kMiBs = 64;
  constexpr std::size_t kFramesPerMiB = kMiB / fiber::wire::kMaxFrameBytes;
  hostile.Send(fiber::wire::Encode(Ask(Op::kQueuePut, 1, std::string(kMiBs * kMiB - 64, 'x'))));
  std::size_t mibs = 0;
  while (mibs + 1 < kMiBs && !gate.closed()) {
    gate.PassUpTo(4 + ++mibs * kFramesPerMiB);
    REQUIRE(Eventually([&] {
      return Backlog(master) + 64 * 1024 >= mibs * kMiB || gate.closed();
    }));
  }
  INFO("MiB passed: " << mibs << "; the master's log: " << log.text());
  CHECK(gate.closed());
  // The master held no more than its bound and the MiB that passed it.
  CHECK(mibs * kMiB <= bound.connection + kMiB);
  CHECK(Eventually([&] { return Backlog(master) < kMiB; }));
  CHECK(Eventually([&] { return Killed(*state, "w0"); }));
  CHECK(log.text().find("closed the connection of worker w0 (127.0.0.1:") != std::string::npos);
  CHECK(log.text().find("it sent that the master has not read as whole messages, more than the "
                        "8 MiB a connection may hold") != std::string::npos);

  // The other pool's worker works on; the cut one's pool replaces it.
  master.RunsATask(other_channel, other);
  ScriptedPeer replacement(ctx, ScriptedBackend::WaitForLaunch(*state, 1));
  replacement.Join();
  master.RunsATask(channel, replacement);
}

TEST_CASE("a worker that asks for large replies and never reads them is cut off at the bound; its pool goes on") {
  StderrCapture log;
  const auto bound = kLowBacklog;
  auto state = std::make_shared<ScriptedBackend::State>();
  TestMaster master({}, bound, SlowHeartbeats());
  const auto channel = master.AddPool(1, state);
  const auto launch = ScriptedBackend::WaitForLaunch(*state, 0);
  zmq::context_t ctx;
  ScriptedPeer worker(ctx, launch);
  worker.Join();
  // Its client connection, made to stop reading once it has its queue:
  // libzmq takes in one message, the kernel a little more, then nothing is
  // acknowledged.
  zmq::socket_t client(ctx, zmq::socket_type::dealer);
  client.set(zmq::sockopt::linger, 0);
  client.set(zmq::sockopt::rcvhwm, 1);
  client.set(zmq::sockopt::rcvbuf, 64 << 10);
  client.set(zmq::sockopt::reconnect_ivl, -1);
  client.set(zmq::sockopt::routing_id, launch.bootstrap.worker_id + ".client");
  fiber::wire::MakeCurveClient(client, launch.bootstrap.client_secret);
  client.connect(launch.bootstrap.master);
  REQUIRE(fiber::wire::SendMessage(client, {}, fiber::wire::Encode(Ask(Op::kQueueNew))));
  zmq::message_t answer;
  std::string err;
  client.set(zmq::sockopt::rcvtimeo, 10000);
  REQUIRE(fiber::wire::ReceiveMessage(client, false, nullptr, &answer, &err) ==
          fiber::wire::Receipt::kMessage);
  fiber::wire::Reply made;
  REQUIRE(fiber::wire::Decode(answer, &made, &err));
  const std::uint64_t queue = IdIn(made);

  // Put an item and get it back, again and again, reading no reply.
  const std::string item(kMiB, 'i');
  constexpr int kCap = 64;  // MiB of replies, eight times the bound
  int asked = 0;
  // Each step waits for the master to have taken it (the item held, then
  // handed back), so the cut comes at the bound however fast the machine.
  const auto held = [&] { return master.HeldFor(launch.bootstrap.worker_id).bytes; };
  for (; asked < kCap && !Killed(*state, "w0"); ++asked) {
    Request put = Ask(Op::kQueuePut, queue, item);
    put.id = 2 * asked + 1;
    REQUIRE(fiber::wire::SendMessage(client, {}, fiber::wire::Encode(put)));
    REQUIRE(Eventually([&] { return held() == item.size() + kEach || Killed(*state, "w0"); }));
    Request get = Ask(Op::kQueueGet, queue);
    get.id = 2 * asked + 2;
    REQUIRE(fiber::wire::SendMessage(client, {}, fiber::wire::Encode(get)));
    REQUIRE(Eventually([&] { return held() == 0 || Killed(*state, "w0"); }));
  }
  CHECK(Killed(*state, "w0"));
  CHECK(asked < kCap);
  CHECK(log.text().find("closed the connection of worker w0 (127.0.0.1:") != std::string::npos);
  CHECK(log.text().find("sent to it that it has not read, more than the 8 MiB a connection may "
                        "hold") != std::string::npos);
  CHECK(log.text().find("worker w0 lost: its connection held ") != std::string::npos);

  // The pool replaces it, and the replacement works.
  ScriptedPeer replacement(ctx, ScriptedBackend::WaitForLaunch(*state, 1));
  replacement.Join();
  master.RunsATask(channel, replacement);
}
