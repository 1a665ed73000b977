// master/dispatcher: the run's one socket routes each worker's message to
// the pool the worker belongs to, and refuses what no pool should get.
// Workers are played by the test over CURVE on 127.0.0.1 (test/support).
#include "master/dispatcher.hpp"

#include <doctest/doctest.h>

#include <mutex>
#include <zmq_addon.hpp>

#include "support/scripted_peer.hpp"
#include "support/stderr_capture.hpp"
#include "support/test_master.hpp"
#include "wire/codec.hpp"

using fiber::testing::RefusalIn;
using fiber::testing::ScriptedBackend;
using fiber::testing::ScriptedPeer;
using fiber::testing::StderrCapture;
using fiber::testing::TestMaster;
using fiber::wire::Type;

namespace {

constexpr const char* kNoSuchWorker = "no worker of this run has that id";

// Two pools of one worker each, both workers joined.
struct TwoPools {
  TwoPools() : a(master.AddPool(1, a_state)), b(master.AddPool(1, b_state)) {
    REQUIRE(a != b);
    REQUIRE(of_a.Join() == a);
    REQUIRE(of_b.Join() == b);
  }
  std::shared_ptr<ScriptedBackend::State> a_state = std::make_shared<ScriptedBackend::State>();
  std::shared_ptr<ScriptedBackend::State> b_state = std::make_shared<ScriptedBackend::State>();
  TestMaster master;
  fiber::wire::Channel a, b;
  zmq::context_t ctx;
  ScriptedPeer of_a{ctx, ScriptedBackend::WaitForLaunch(*a_state, 0)};
  ScriptedPeer of_b{ctx, ScriptedBackend::WaitForLaunch(*b_state, 0)};
};

}  // namespace

TEST_CASE("each worker's messages reach its own pool, on the run's one socket") {
  TwoPools run;
  // Worker ids are the run's, not each pool's.
  CHECK(ScriptedBackend::WaitForLaunch(*run.a_state, 0).bootstrap.worker_id == "w0");
  CHECK(ScriptedBackend::WaitForLaunch(*run.b_state, 0).bootstrap.worker_id == "w1");
  run.master.RunsATask(run.a, run.of_a);
  run.master.RunsATask(run.b, run.of_b);
  run.master.RunsATask(run.a, run.of_a);
}

TEST_CASE("a worker id the run never gave out is refused, whatever it sends") {
  StderrCapture log;
  TwoPools run;
  ScriptedPeer stranger(run.ctx, run.master.dispatcher->endpoint(), "w99", &run.master.keys);
  stranger.Send(fiber::wire::Encode(fiber::wire::Hello{42}));
  CHECK(RefusalIn(stranger.Receive(10000)) == kNoSuchWorker);
  ScriptedPeer unwelcome(run.ctx, run.master.dispatcher->endpoint(), "w98", &run.master.keys);
  unwelcome.Send(fiber::wire::Encode(fiber::wire::Ready{1}, run.a));
  CHECK(RefusalIn(unwelcome.Receive(10000)) == kNoSuchWorker);
  // The pools' own workers go on.
  run.master.RunsATask(run.a, run.of_a);
  CHECK(log.text().find("refused worker 'w99': no worker of this run has that id") != std::string::npos);
}

TEST_CASE("a worker writing to another pool is lost by its own, and the other pool goes on") {
  StderrCapture log;
  TwoPools run;
  run.of_a.Send(fiber::wire::Encode(fiber::wire::Ready{1}, run.b));
  const auto replacement = ScriptedBackend::WaitForLaunch(*run.a_state, 1);
  CHECK(replacement.bootstrap.worker_id == "w2");
  run.master.RunsATask(run.b, run.of_b);
  const std::string text = log.text();
  CHECK(text.find("dropped READY for pool " + std::to_string(run.b) +
                  " from 'w0', which is not a connected worker of that pool") != std::string::npos);
  CHECK(text.find("w0 lost: it sent READY for pool " + std::to_string(run.b) +
                  ", which it does not belong to") != std::string::npos);
  std::lock_guard<std::mutex> lock(run.b_state->mu);
  CHECK(run.b_state->launches.size() == 1);
}

TEST_CASE("a worker that sends a malformed message is lost, and replaced") {
  StderrCapture log;
  TwoPools run;
  zmq::multipart_t garbage;
  garbage.addstr("F");
  garbage.addstr("x");
  garbage.send(run.of_a.socket);
  const auto replacement = ScriptedBackend::WaitForLaunch(*run.a_state, 1);
  CHECK(replacement.bootstrap.worker_id == "w2");
  run.master.RunsATask(run.b, run.of_b);
  const std::string text = log.text();
  CHECK(text.find("dropped a malformed message from 'w0'") != std::string::npos);
  CHECK(text.find("w0 lost: it sent a malformed message") != std::string::npos);
}

TEST_CASE("a worker of a pool that is gone is refused as one the run does not have") {
  StderrCapture log;
  TwoPools run;
  run.master.OnIoThread([&] { run.master.dispatcher->RemovePool(run.a); });
  run.of_a.Send(fiber::wire::EncodeControl(Type::kHeartbeat, run.a));
  std::string refusal;
  for (int i = 0; i < 5 && refusal.empty(); ++i) refusal = RefusalIn(run.of_a.Receive(10000));
  CHECK(refusal == kNoSuchWorker);
  run.master.RunsATask(run.b, run.of_b);
}
