// An admitted peer is bounded too: a worker holding the run's key, buggy or
// hostile, can make the master hold only so much for it (requests waiting,
// bytes of items, each counted, empty or not, queues, descriptors of the
// shared values it holds; below ZeroMQ: connection_bounds_test), may ask
// only once it has said HELLO, may call only a manager's pool, and leaves
// no waits behind when it goes.
// Workers are played by the test (test/support) against an in-process master.
#include <doctest/doctest.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>

#include "master/peer_budget.hpp"
#include "support/count.hpp"
#include "support/eventually.hpp"
#include "support/scripted_peer.hpp"
#include "support/stderr_capture.hpp"
#include "support/test_master.hpp"
#include "support/told.hpp"
#include "wire/codec.hpp"
#include "wire/limits.hpp"
#include "wire/request.hpp"

using fiber::testing::Count;
using fiber::testing::Eventually;
using fiber::testing::IdIn;
using fiber::testing::ScriptedBackend;
using fiber::testing::ScriptedPeer;
using fiber::testing::StderrCapture;
using fiber::testing::TestMaster;
using fiber::wire::Op;
using fiber::wire::Request;
using fiber::wire::Status;

namespace {

std::size_t Queues(TestMaster& master) {
  std::size_t n = 0;
  master.OnIoThread([&] { n = master.dispatcher->requests().queues().queues(); });
  return n;
}

constexpr std::size_t kMiB = std::size_t{1} << 20;
// What the master charges for each item beside its bytes.
constexpr std::size_t kEach = fiber::wire::kHeldOverheadBytes;
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
  CHECK(master.HeldFor(id).bytes <= limits.bytes);

  // Gets that wait forever, sent without waiting for answers.
  for (int i = 0; i < kFlood; ++i) client.Send(fiber::wire::Encode(Ask(Op::kQueueGet, made[1])));
  int answered = 0;
  for (; answered < kFlood - static_cast<int>(limits.requests); ++answered) {
    fiber::wire::Reply reply;
    std::string err;
    REQUIRE(fiber::wire::Decode(client.Receive(10000), &reply, &err));
    CHECK(reply.status == Status::kRefused);
  }
  CHECK(master.HeldFor(id).requests == limits.requests);
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
  CHECK(master.HeldFor(played.id()).bytes == items * kEach);
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
  master.RunsATask(channel, other);
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
  REQUIRE(Eventually([&] { return master.HeldFor(id).requests == 5; }));
  // Its process dies: both connections close.
  worker.reset();
  client.reset();
  CHECK(Eventually([&] { return master.HeldFor(id).requests == 0; }));
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
