// An admitted peer is bounded too: a worker holding the run's key, buggy or
// hostile, can make the master hold only so much for it (requests waiting,
// bytes of items, queues), may ask only once it has said HELLO, may call
// only a manager's pool, and leaves no waits behind when it goes. Workers
// are played by the test (test/support) against an in-process master.
#include <doctest/doctest.h>

#include <chrono>
#include <cstring>
#include <thread>

#include "master/peer_budget.hpp"
#include "support/count.hpp"
#include "support/scripted_peer.hpp"
#include "support/stderr_capture.hpp"
#include "support/test_master.hpp"
#include "wire/request.hpp"

using fiber::master::PeerBudget;
using fiber::testing::Count;
using fiber::testing::ScriptedBackend;
using fiber::testing::ScriptedPeer;
using fiber::testing::StderrCapture;
using fiber::testing::TestMaster;
using fiber::wire::Op;
using fiber::wire::Request;
using fiber::wire::Status;

namespace {

Request Ask(Op op, std::uint64_t object = 0, std::string body = {}) {
  Request r;
  r.op = op;
  r.object = object;
  r.body = std::move(body);
  return r;
}

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

}  // namespace

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
  const fiber::wire::PeerLimits limits{.requests = 16, .bytes = 1 << 20, .queues = 8};
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
  CHECK(made.size() == limits.queues);
  CHECK(refused == kFlood - static_cast<int>(limits.queues));
  CHECK(Queues(master) <= limits.queues);
  REQUIRE(made.size() >= 2);

  // Items nobody takes.
  const std::string item(64 << 10, 'i');
  int stored = 0;
  for (int i = 0; i < kFlood; ++i)
    if (client.Ask(Ask(Op::kQueuePut, made[0], item)).status == Status::kOk) ++stored;
  CHECK(stored == static_cast<int>(limits.bytes / item.size()));
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
    master.dispatcher->Handle(Ask(Op::kQueuePut, queue, "x"), [&](Status s, const std::string&) {
      put = s;
      return true;
    });
  });
  CHECK(put == Status::kOk);
  std::size_t items = 0;
  master.OnIoThread([&] { items = master.dispatcher->requests().queues().items(); });
  CHECK(items == 1);
}
