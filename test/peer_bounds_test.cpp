// An admitted peer is bounded too: a worker holding the run's key, buggy or
// hostile, can make the master hold only so much for it (requests waiting,
// bytes of items (each counted, empty or not), queues, descriptors of the
// shared values it holds, and below ZeroMQ what it sends that never makes a
// message or what it does not read), may ask only once it has said HELLO,
// may call only a manager's pool, and leaves no waits behind when it goes.
// Workers are played by the test (test/support) against an in-process master.
#include <doctest/doctest.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <thread>

#include "fiber/async_result.hpp"
#include "master/peer_budget.hpp"
#include "support/count.hpp"
#include "support/frame_gate.hpp"
#include "support/scripted_peer.hpp"
#include "support/stderr_capture.hpp"
#include "support/test_master.hpp"
#include "support/told.hpp"
#include "tasks.hpp"
#include "wire/codec.hpp"
#include "wire/credentials.hpp"
#include "wire/frames.hpp"
#include "wire/limits.hpp"
#include "wire/request.hpp"

using fiber::master::PeerBudget;
using fiber::testing::Count;
using fiber::testing::FrameGate;
using fiber::testing::ScriptedBackend;
using fiber::testing::ScriptedPeer;
using fiber::testing::StderrCapture;
using fiber::testing::TestMaster;
using fiber::wire::Op;
using fiber::wire::Request;
using fiber::wire::Status;

namespace {

std::uint64_t IdIn(const fiber::wire::Reply& reply) {
  std::uint64_t id = 0;
  REQUIRE(reply.status == Status::kOk);
  REQUIRE(reply.body.size() == sizeof id);
  std::memcpy(&id, reply.body.data(), sizeof id);
  return id;
}

// What the master holds for worker, read on its I/O thread.
PeerBudget::Usage HeldFor(TestMaster& master, const std::string& worker) {
  PeerBudget::Usage usage;
  master.OnIoThread([&] { usage = master.dispatcher->requests().HeldFor(worker); });
  return usage;
}

std::size_t Queues(TestMaster& master) {
  std::size_t n = 0;
  master.OnIoThread([&] { n = master.dispatcher->requests().queues().queues(); });
  return n;
}

// Polls until done() holds; false after 30 s (a hang guard, not a timing).
template <class F>
bool Eventually(F done) {
  for (int i = 0; i < 3000; ++i) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

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

// The one worker of a pool of master's, played by the test and joined,
// with its client connection.
struct PlayedWorker {
  explicit PlayedWorker(TestMaster& master)
      : launch(Launched(master)), worker(ctx, launch), client(ctx, launch, ".client") {
    worker.Join();
  }
  static fiber::backend::Launch Launched(TestMaster& master) {
    auto state = std::make_shared<ScriptedBackend::State>();
    master.AddPool(1, state);
    return ScriptedBackend::WaitForLaunch(*state, 0);
  }
  const std::string& id() const { return launch.bootstrap.worker_id; }

  zmq::context_t ctx;
  fiber::backend::Launch launch;
  ScriptedPeer worker, client;
};

// This process's soft RLIMIT_NOFILE, lowered while this lives.
class SoftDescriptorLimit {
 public:
  explicit SoftDescriptorLimit(rlim_t soft) {
    REQUIRE(::getrlimit(RLIMIT_NOFILE, &old_) == 0);
    rlimit lowered = old_;
    lowered.rlim_cur = std::min(soft, old_.rlim_max);
    REQUIRE(::setrlimit(RLIMIT_NOFILE, &lowered) == 0);
  }
  ~SoftDescriptorLimit() { (void)::setrlimit(RLIMIT_NOFILE, &old_); }
  SoftDescriptorLimit(const SoftDescriptorLimit&) = delete;
  SoftDescriptorLimit& operator=(const SoftDescriptorLimit&) = delete;

 private:
  rlimit old_{};
};

// A pool's worker, played by worker, runs a task of the pool to its end.
void RunsATask(TestMaster& master, fiber::wire::Channel channel, ScriptedPeer& worker) {
  auto batch = std::make_shared<fiber::detail::Batch>(1);
  master.OnIoThread([&] {
    master.dispatcher->FindPool(channel)->Submit(
        "square", {fiber::detail::encode_args(square, 7)}, 1, batch, fiber::master::Clock::now());
  });
  zmq::message_t held;
  const auto task = worker.NextTasks(&held).at(0);
  worker.Answer(channel, task.id, {fiber::detail::to_bytes(49)});
  REQUIRE(batch->wait_all(fiber::detail::deadline_after(std::chrono::seconds(30))));
  CHECK(fiber::detail::decode<int>(batch->at(0)) == 49);
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

  // A message of 64 frames of 1 MiB, each with MORE but the last, which
  // never comes. Its frames pass one by one, each once the master has
  // measured the one before, so what it holds at the cut says where the
  // bound is, however fast the machine.
  REQUIRE(Eventually([&] { return gate.passed() == 4; }));  // CURVE HELLO, INITIATE; HELLO, READY
  gate.PassUpTo(4);
  constexpr std::size_t kFrames = 64;
  hostile.Send(fiber::wire::Encode(Ask(Op::kQueuePut, 1, std::string(kFrames * kMiB - 64, 'x'))));
  std::size_t frames = 0;
  while (frames + 1 < kFrames && !gate.closed()) {
    gate.PassUpTo(4 + ++frames);
    REQUIRE(Eventually([&] {
      return Backlog(master) + 64 * 1024 >= frames * kMiB || gate.closed();
    }));
  }
  INFO("frames passed: " << frames << "; the master's log: " << log.text());
  CHECK(gate.closed());
  // The master held no more than its bound and the frame that passed it.
  CHECK(frames * kMiB <= bound.connection + kMiB);
  CHECK(Eventually([&] { return Backlog(master) < kMiB; }));
  CHECK(Eventually([&] { return Killed(*state, "w0"); }));
  CHECK(log.text().find("closed the connection of worker w0 (127.0.0.1:") != std::string::npos);
  CHECK(log.text().find("it sent that the master has not read as whole messages, more than the "
                        "8 MiB a connection may hold") != std::string::npos);

  // The other pool's worker works on; the cut one's pool replaces it.
  RunsATask(master, other_channel, other);
  ScriptedPeer replacement(ctx, ScriptedBackend::WaitForLaunch(*state, 1));
  replacement.Join();
  RunsATask(master, channel, replacement);
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
  const auto held = [&] { return HeldFor(master, launch.bootstrap.worker_id).bytes; };
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
  RunsATask(master, channel, replacement);
}

TEST_CASE("a REQUEST from a peer that has not said HELLO is refused, not served") {
  StderrCapture log;
  auto state = std::make_shared<ScriptedBackend::State>();
  TestMaster master;
  master.AddPool(1, state);
  const auto launch = ScriptedBackend::WaitForLaunch(*state, 0);
  zmq::context_t ctx;
  // The client connection of a worker that was started but has not said HELLO.
  ScriptedPeer early(ctx, launch, ".client");
  const auto refused = early.Ask(Ask(Op::kQueueNew));
  CHECK(refused.status == Status::kRefused);
  CHECK(refused.body.find("HELLO") != std::string::npos);
  // An id no worker of the run has, with the run's key.
  ScriptedPeer stranger(ctx, launch.bootstrap.master, "w999", &master.keys);
  CHECK(stranger.Ask(Ask(Op::kQueueNew)).status == Status::kRefused);
  CHECK(Queues(master) == 0);
  // Once its worker has said HELLO, the same connection is served.
  ScriptedPeer worker(ctx, launch);
  worker.Join();
  CHECK(early.Ask(Ask(Op::kQueueNew)).status == Status::kOk);
  CHECK(Queues(master) == 1);
  CHECK(log.text().find("refused a request from '" + launch.bootstrap.worker_id + ".client'") !=
        std::string::npos);
}

TEST_CASE("a worker flooding queues, items and waits is held to its bounds, measured in the master") {
  StderrCapture log;
  const fiber::wire::PeerLimits limits{.requests = 16, .bytes = 1 << 20, .objects = 8};
  auto state = std::make_shared<ScriptedBackend::State>();
  TestMaster master(limits);
  master.AddPool(1, state);
  const auto launch = ScriptedBackend::WaitForLaunch(*state, 0);
  const std::string id = launch.bootstrap.worker_id;
  zmq::context_t ctx;
  ScriptedPeer worker(ctx, launch);
  worker.Join();
  ScriptedPeer client(ctx, launch, ".client");
  constexpr int kFlood = 100;

  // Queues made at will.
  std::vector<std::uint64_t> made;
  int refused = 0;
  for (int i = 0; i < kFlood; ++i) {
    const auto reply = client.Ask(Ask(Op::kQueueNew));
    if (reply.status == Status::kOk) made.push_back(IdIn(reply));
    if (reply.status == Status::kRefused) ++refused;
  }
  CHECK(made.size() == limits.objects);
  CHECK(refused == kFlood - static_cast<int>(limits.objects));
  CHECK(Queues(master) <= limits.objects);
  REQUIRE(made.size() >= 2);

  // Items nobody takes.
  const std::string item(64 << 10, 'i');
  int stored = 0;
  for (int i = 0; i < kFlood; ++i)
    if (client.Ask(Ask(Op::kQueuePut, made[0], item)).status == Status::kOk) ++stored;
  CHECK(stored == static_cast<int>(limits.bytes / (item.size() + kEach)));
  CHECK(HeldFor(master, id).bytes <= limits.bytes);

  // Gets that wait forever, sent without waiting for answers.
  for (int i = 0; i < kFlood; ++i) client.Send(fiber::wire::Encode(Ask(Op::kQueueGet, made[1])));
  int answered = 0;
  for (; answered < kFlood - static_cast<int>(limits.requests); ++answered) {
    fiber::wire::Reply reply;
    std::string err;
    REQUIRE(fiber::wire::Decode(client.Receive(10000), &reply, &err));
    CHECK(reply.status == Status::kRefused);
  }
  CHECK(HeldFor(master, id).requests == limits.requests);
  CHECK(client.Receive(200).size() == 0);  // the rest wait, as gets do

  // One line names the worker, however many requests were refused.
  const std::string text = log.text();
  CHECK(Count(text, "worker " + id + " is over a bound") == 1);
}

TEST_CASE("a worker putting empty items by the thousand is refused once what they cost is spent; "
          "the master holds no more of them") {
  const fiber::wire::PeerLimits limits{.bytes = kMiB};
  TestMaster master(limits);
  PlayedWorker played(master);
  const std::uint64_t queue = IdIn(played.client.Ask(Ask(Op::kQueueNew)));
  constexpr std::size_t kBatch = 10000;
  const std::string empties = fiber::wire::EncodeList(std::vector<std::string_view>(kBatch));
  std::vector<Status> told;
  for (int i = 0; i < 10; ++i)
    told.push_back(played.client.Ask(Ask(Op::kQueuePutMany, queue, empties)).status);
  CHECK(std::count(told.begin(), told.end(), Status::kOk) == static_cast<long>(limits.bytes / (kBatch * kEach)));
  std::size_t items = 0;
  master.OnIoThread([&] { items = master.dispatcher->requests().queues().items(); });
  CHECK(items <= limits.bytes / kEach);
  CHECK(HeldFor(master, played.id()).bytes == items * kEach);
}

TEST_CASE("a worker sharing values past its share of the master's descriptors is refused by name; a "
          "new pool still starts") {
  StderrCapture log;
  // A shared machine's soft limit: every value shared would otherwise keep
  // one of 256 descriptors open in the master.
  SoftDescriptorLimit lowered(256);
  TestMaster master;
  PlayedWorker played(master);
  int shared = 0;
  std::string refusal;
  for (int i = 0; i < 300; ++i) {
    const auto reply = played.client.Ask(Ask(Op::kShareNew, 0, "value"));
    if (reply.status == Status::kOk) ++shared;
    if (reply.status == Status::kRefused && refusal.empty()) refusal = reply.body;
  }
  // A quarter of the limit for all workers' values, a quarter of that for one.
  CHECK(shared == 256 / 4 / 4);
  CHECK(refusal.find("it holds 16 shared values (a descriptor of the master's each) of the 16") !=
        std::string::npos);
  std::size_t values = 0;
  master.OnIoThread([&] { values = master.dispatcher->requests().shares().values(); });
  CHECK(values == 16);

  auto others = std::make_shared<ScriptedBackend::State>();
  const auto channel = master.AddPool(1, others);
  ScriptedPeer other(played.ctx, ScriptedBackend::WaitForLaunch(*others, 0));
  REQUIRE(other.Join() == channel);
  RunsATask(master, channel, other);
  CHECK(Count(log.text(), "worker " + played.id() + " is over a bound") == 1);
}

TEST_CASE("a MANAGER_CALL for a pool that is not a manager is refused, and the pool runs nothing") {
  auto state = std::make_shared<ScriptedBackend::State>();
  TestMaster master;
  const auto channel = master.AddPool(1, state);
  const auto launch = ScriptedBackend::WaitForLaunch(*state, 0);
  zmq::context_t ctx;
  ScriptedPeer worker(ctx, launch);
  worker.Join();
  ScriptedPeer client(ctx, launch, ".client");
  const auto reply = client.Ask(
      Ask(Op::kManagerCall, channel, fiber::wire::EncodePair("fiber_manager_call", "")));
  CHECK(reply.status == Status::kRefused);
  CHECK(reply.body.find("not a manager") != std::string::npos);
  fiber::master::PoolService::Status s;
  master.OnIoThread([&] { s = master.dispatcher->FindPool(channel)->status(); });
  CHECK(s.tasks_queued + s.tasks_running == 0);
}

TEST_CASE("the waits of a worker that left are dropped with it") {
  auto state = std::make_shared<ScriptedBackend::State>();
  TestMaster master;
  master.AddPool(1, state);
  const auto launch = ScriptedBackend::WaitForLaunch(*state, 0);
  const std::string id = launch.bootstrap.worker_id;
  zmq::context_t ctx;
  auto worker = std::make_unique<ScriptedPeer>(ctx, launch);
  worker->Join();
  auto client = std::make_unique<ScriptedPeer>(ctx, launch, ".client");
  const auto queue = IdIn(client->Ask(Ask(Op::kQueueNew)));
  for (int i = 0; i < 5; ++i) client->Send(fiber::wire::Encode(Ask(Op::kQueueGet, queue)));
  REQUIRE(Eventually([&] { return HeldFor(master, id).requests == 5; }));
  // Its process dies: both connections close.
  worker.reset();
  client.reset();
  CHECK(Eventually([&] { return HeldFor(master, id).requests == 0; }));
  // Nothing is delivered to it: an item put now stays for the next consumer.
  Status put = Status::kLost;
  master.OnIoThread([&] {
    master.dispatcher->Handle(Ask(Op::kQueuePut, queue, "x"), [&](Status s, std::string_view) {
      put = s;
      return true;
    });
  });
  CHECK(put == Status::kOk);
  std::size_t items = 0;
  master.OnIoThread([&] { items = master.dispatcher->requests().queues().items(); });
  CHECK(items == 1);
}
