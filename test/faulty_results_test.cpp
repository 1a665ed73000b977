// A worker's RESULT is checked against the tasks it holds before any of
// its outcomes is read: a worker that answers a task it does not hold,
// claims more outcomes than its bytes hold, or answers more often than it
// was given tasks is dropped by name, and its task runs elsewhere. The
// workers are played by the test (test/support) against an in-process master.
#include <doctest/doctest.h>

#include <algorithm>
#include <functional>
#include <string>

#include "support/scripted_peer.hpp"
#include "support/stderr_capture.hpp"
#include "support/test_master.hpp"
#include "tasks.hpp"
#include "wire/task_batch.hpp"

using fiber::testing::ScriptedBackend;
using fiber::testing::ScriptedPeer;
using fiber::testing::StderrCapture;
using fiber::testing::TestMaster;
using fiber::wire::Type;

namespace {

std::string square_call(int x) { return fiber::detail::encode_args(square, x); }

// A worker that answers its task with forge(channel, task id) is dropped,
// the master logging "worker w0 lost: it sent " + why; its replacement
// gets the same call and answers it properly.
void DroppedForItsResult(const std::function<zmq::message_t(fiber::wire::Channel, std::uint64_t)>& forge,
                         const std::function<std::string(std::uint64_t)>& why) {
  StderrCapture log;
  auto state = std::make_shared<ScriptedBackend::State>();
  TestMaster master;
  const auto channel = master.AddPool(1, state);
  zmq::context_t ctx;
  ScriptedPeer liar(ctx, ScriptedBackend::WaitForLaunch(*state, 0));
  REQUIRE(liar.Join() == channel);
  auto batch = std::make_shared<fiber::detail::Batch>(1);
  master.OnIoThread([&] {
    master.dispatcher->FindPool(channel)->Submit("square", {square_call(7)}, 1, batch,
                                                 fiber::master::Clock::now());
  });
  zmq::message_t held;
  const auto task = liar.NextTasks(&held).at(0);
  liar.Send(forge(channel, task.id));

  ScriptedPeer honest(ctx, ScriptedBackend::WaitForLaunch(*state, 1));
  honest.Join();
  const auto again = honest.NextTasks(&held).at(0);
  REQUIRE(again.calls.size() == 1);
  const int x = std::get<0>(fiber::detail::from_bytes<std::tuple<int>>(again.calls[0]));
  honest.Answer(channel, again.id, {fiber::detail::to_bytes(x * x)});

  REQUIRE(batch->wait_all(fiber::detail::deadline_after(std::chrono::seconds(30))));
  CHECK(fiber::detail::decode<int>(batch->at(0)) == 49);
  {
    std::lock_guard<std::mutex> lock(state->mu);
    CHECK(std::count(state->killed.begin(), state->killed.end(), "w0") >= 1);
  }
  INFO(log.text());
  CHECK(log.text().find("worker w0 lost: it sent " + why(task.id)) != std::string::npos);
}

// A RESULT of credit 1 whose results are written by fill.
zmq::message_t Result(fiber::wire::Channel channel, const std::function<void(fiber::wire::Writer&)>& fill) {
  fiber::wire::Writer w(Type::kResult, channel);
  w.U32(1);
  fill(w);
  return w.Finish();
}

}  // namespace

TEST_CASE("a worker that answers for a task it does not hold is dropped; the task runs elsewhere") {
  DroppedForItsResult(
      [](fiber::wire::Channel channel, std::uint64_t task) {
        return Result(channel, [&](fiber::wire::Writer& w) {
          fiber::wire::AppendResultHead(w, task + 1000, 1);
          fiber::wire::AppendOutcome(w, {fiber::wire::OutcomeKind::kValue, fiber::detail::to_bytes(0), {}});
        });
      },
      [](std::uint64_t task) {
        return "a result for task " + std::to_string(task + 1000) + ", which it does not hold";
      });
}

TEST_CASE("a worker whose RESULT claims more outcomes than its bytes hold is dropped before they "
          "are read; the task runs elsewhere") {
  DroppedForItsResult(
      [](fiber::wire::Channel channel, std::uint64_t task) {
        return Result(channel, [&](fiber::wire::Writer& w) { w.U64(task).U32(1u << 31).U8(0).U32(0); });
      },
      [](std::uint64_t task) {
        return "a RESULT message claiming 2147483648 outcomes of task " + std::to_string(task) +
               " in 5 bytes";
      });
}

TEST_CASE("a worker whose RESULT answers its task more times than it was given tasks is dropped; "
          "the task runs elsewhere") {
  DroppedForItsResult(
      [](fiber::wire::Channel channel, std::uint64_t task) {
        return Result(channel, [&](fiber::wire::Writer& w) {
          for (int i = 0; i < 1000; ++i) {
            fiber::wire::AppendResultHead(w, task, 1);
            fiber::wire::AppendOutcome(w, {fiber::wire::OutcomeKind::kValue, "", {}});
          }
        });
      },
      [](std::uint64_t) { return std::string("results for more tasks than the 1 it was given"); });
}
