// A pool's dealing: leases within credit, results checked before they are
// read, chunks, task timeouts and work stealing; driven through the pool by
// scripted workers and a clock moved by hand, and on its own.
#include <doctest/doctest.h>

#include "fiber/errors.hpp"
#include "master/dealing.hpp"
#include "support/pool_harness.hpp"
#include "support/recording_outbox.hpp"
#include "wire/codec.hpp"

using fiber::testing::PoolHarness;
using fiber::testing::ScriptedBackend;
using fiber::wire::Type;
using std::chrono::milliseconds;

namespace {
// What the WELCOME to worker asked of its results.
bool ResultsAtOnce(const PoolHarness& h, const std::string& worker) {
  fiber::wire::Welcome welcome;
  std::string err;
  REQUIRE(fiber::wire::Decode(h.outbox.sent.at(worker).at(0), &welcome, &err));
  return welcome.results_at_once;
}

// A pool's dealing on its own, with its workers and clock in the test's hands.
struct DealingRig {
  DealingRig() {
    options.channel = PoolHarness::kChannel;
    for (const char* id : {"w0", "w1"}) {
      workers.Add(id, now);
      REQUIRE(workers.Connect(id, 1));
      workers.SetCredit(*workers.Find(id), 2);
    }
  }
  std::shared_ptr<fiber::detail::Batch> Squares(int n) {
    std::vector<std::string> calls(static_cast<std::size_t>(n), "x");
    auto batch = std::make_shared<fiber::detail::Batch>(calls.size());
    dealing.Submit("square", std::move(calls), 1, batch, fiber::wire::TaskForm::kCalls);
    return batch;
  }
  fiber::master::Clock::time_point now = fiber::master::Clock::time_point() + std::chrono::hours(1);
  fiber::master::PoolServiceOptions options;
  fiber::master::PoolPhase phase;
  fiber::testing::RecordingOutbox outbox;
  fiber::master::PoolStats stats{now};
  fiber::master::WorkerSet workers;
  fiber::master::Dealing dealing{options, phase, outbox, stats};
};
}  // namespace

TEST_CASE("a worker found unreachable while dealing is handed back once the deal is over, not lost within it") {
  DealingRig rig;
  rig.outbox.unreachable.insert("w0");
  auto batch = rig.Squares(4);
  CHECK(rig.dealing.Deal(rig.workers, rig.now) == std::vector<std::string>{"w0"});
  // The deal went on to its end: w1 has its share, and w0, still in the
  // set, still holds what it was dealt; no call has failed.
  CHECK(rig.outbox.TaskIds("w1") == std::vector<std::uint64_t>{2, 4});
  REQUIRE(rig.workers.Find("w0") != nullptr);
  CHECK(rig.dealing.tasks().Leases("w0") == 2);
  CHECK_FALSE(batch->wait_slot(0, std::chrono::steady_clock::now()));
  // Lost afterwards by its caller: its tasks go back to the front, in order.
  rig.dealing.Lose("w0", "its connection closed");
  fiber::master::WorkerEnd end;
  end.id = "w0";
  rig.workers.End(end);  // as its crew would
  CHECK(rig.dealing.tasks().pending() == 2);
  rig.workers.SetCredit(*rig.workers.Find("w1"), 4);
  CHECK(rig.dealing.Deal(rig.workers, rig.now).empty());
  CHECK(rig.outbox.TaskIds("w1") == std::vector<std::uint64_t>{2, 4, 1, 3});
}

TEST_CASE("a faulty result is answered with why its worker is to be lost, and nothing of it is counted") {
  DealingRig rig;
  auto batch = rig.Squares(4);
  REQUIRE(rig.dealing.Deal(rig.workers, rig.now).empty());  // w0 holds tasks 1 and 3
  fiber::wire::Writer w(Type::kResult, PoolHarness::kChannel);
  w.U32(2);
  fiber::wire::AppendResultHead(w, 1, 1);  // w0 holds task 1, not 2
  fiber::wire::AppendOutcome(w, {fiber::wire::OutcomeKind::kValue, "v", {}});
  fiber::wire::AppendResultHead(w, 2, 1);
  fiber::wire::AppendOutcome(w, {fiber::wire::OutcomeKind::kValue, "v", {}});
  const auto answer = rig.dealing.OnResult(rig.workers, "w0", w.Finish(), rig.now);
  REQUIRE(answer.fault);
  CHECK(*answer.fault == "it sent a result for task 2, which it does not hold");
  CHECK(rig.dealing.tasks().Leases("w0") == 2);  // task 1 not finished either
  CHECK(rig.dealing.tasks().done() == 0);
  CHECK_FALSE(batch->wait_slot(0, std::chrono::steady_clock::now()));
}

TEST_CASE("a pool starts its workers and deals a round of tasks over idle workers first") {
  PoolHarness h(3);
  CHECK(h.Launched() == std::vector<std::string>{"w0", "w1", "w2"});
  h.Connect("w0", 2);
  h.Connect("w1", 2);
  h.Connect("w2", 2);
  auto batch = h.SubmitSquares(3);
  CHECK(h.outbox.TaskIds("w0").size() == 1);
  CHECK(h.outbox.TaskIds("w1").size() == 1);
  CHECK(h.outbox.TaskIds("w2").size() == 1);
}

TEST_CASE("a worker never holds more tasks than its credit, and a result raises it") {
  PoolHarness h(1);
  h.Connect("w0", 2);
  auto batch = h.SubmitSquares(10);
  CHECK(h.outbox.TaskIds("w0") == std::vector<std::uint64_t>{1, 2});
  h.Answer("w0", 1, {0}, 3);  // now it may hold 3: it holds 1, so gets 2 more
  CHECK(h.outbox.TaskIds("w0") == std::vector<std::uint64_t>{1, 2, 3, 4});
  CHECK(h.pool->Workers().at(0).running == 3);
}

TEST_CASE("a result for a task the worker does not hold, or a duplicate, loses the worker") {
  PoolHarness h(1);
  h.Connect("w0", 2);
  auto batch = h.SubmitSquares(2);
  h.Answer("w0", 1, {0}, 2);
  REQUIRE(batch->wait_slot(0));
  h.Answer("w0", 1, {99}, 2);  // again: it no longer holds task 1
  CHECK(h.pool->Owns("w0") == false);
  CHECK(PoolHarness::Slot(*batch, 0) == "0");  // the first answer stands
  // Task 2 goes to the replacement.
  h.Connect("w1", 2);
  CHECK(h.outbox.TaskIds("w1") == std::vector<std::uint64_t>{2});
}

TEST_CASE("a result with the wrong number of outcomes loses the worker and counts nothing") {
  PoolHarness h(1);
  h.Connect("w0");
  auto batch = h.SubmitSquares(4, 2);  // tasks of 2 calls
  h.Answer("w0", 1, {0});
  CHECK_FALSE(h.pool->Owns("w0"));
  CHECK_FALSE(batch->ready());
}

TEST_CASE("a chunk of map is one task of the chunk form, dealt again whole when lost") {
  PoolHarness h(1);
  h.Connect("w0");
  auto batch = std::make_shared<fiber::detail::Batch>(2);
  h.pool->Submit("square", {"chunk 0", "chunk 1"}, 1, batch, h.now,
                 fiber::wire::TaskForm::kChunk);
  auto sent = h.outbox.Tasks("w0");
  REQUIRE(sent.size() == 1);
  CHECK(sent[0].form == fiber::wire::TaskForm::kChunk);
  CHECK(sent[0].calls == std::vector<std::string_view>{"chunk 0"});
  ScriptedBackend::Crash(*h.backend, "w0", "killed by SIGKILL");
  h.Advance(milliseconds(100));
  h.Connect("w1");
  sent = h.outbox.Tasks("w1");
  REQUIRE(sent.size() == 1);
  CHECK(sent[0].id == 1);
  CHECK(sent[0].form == fiber::wire::TaskForm::kChunk);
  CHECK(sent[0].calls == std::vector<std::string_view>{"chunk 0"});
  h.Answer("w1", 1, {0}, 1);  // one outcome: the chunk's, kept whole
  REQUIRE(batch->wait_slot(0));
  CHECK(PoolHarness::Slot(*batch, 0) == "0");
  CHECK_FALSE(batch->ready());
}

TEST_CASE("a task running longer than task_timeout fails with TimeoutError and its worker is replaced") {
  auto o = PoolHarness::OptionsOf(1);
  o.task_timeout = milliseconds(1000);
  o.max_task_retries = 0;  // the task queued behind it is not lost: it runs
  PoolHarness h(std::move(o));
  h.Connect("w0", 2);
  CHECK(ResultsAtOnce(h, "w0"));  // so the master knows which task runs
  auto batch = h.SubmitSquares(3);
  CHECK(h.outbox.TaskIds("w0") == std::vector<std::uint64_t>{1, 2});
  // Timed from when the worker could start it: task 2 from task 1's result.
  h.Advance(milliseconds(600));
  h.Answer("w0", 1, {0}, 2);
  h.Advance(milliseconds(600));
  CHECK(h.pool->Owns("w0"));
  h.Advance(milliseconds(500));
  CHECK_FALSE(h.pool->Owns("w0"));
  CHECK(h.backend->killed == std::vector<std::string>{"w0"});
  CHECK(h.Launched().back() == "w1");
  REQUIRE(batch->wait_slot(1));
  CHECK_THROWS_WITH_AS(fiber::detail::decode<int>(batch->at(1)),
                       "task square (item 1) ran longer than its pool's task_timeout of 1.0 s "
                       "on worker w0, which was killed",
                       fiber::TimeoutError);
  CHECK(h.pool->status().tasks_failed == 1);
  h.Connect("w1", 2);
  CHECK(h.outbox.TaskIds("w1") == std::vector<std::uint64_t>{3});  // not 2: no retry
  h.Answer("w1", 3, {4}, 2);
  REQUIRE(batch->ready());
  CHECK(PoolHarness::Slot(*batch, 2) == "4");
}

TEST_CASE("without a task timeout, workers batch their results") {
  PoolHarness h(1);
  h.Connect("w0", 2);
  CHECK_FALSE(ResultsAtOnce(h, "w0"));
}

TEST_CASE("a task queued behind a slow one goes to an idle worker once the busy one says it skipped it") {
  PoolHarness h(2);
  h.Connect("w0", 2);
  h.Connect("w1", 2);
  auto batch = h.SubmitSquares(4);
  CHECK(h.outbox.TaskIds("w0") == std::vector<std::uint64_t>{1, 3});
  CHECK(h.outbox.TaskIds("w1") == std::vector<std::uint64_t>{2, 4});
  h.Answer("w1", 2, {1}, 2);
  h.Answer("w1", 4, {9}, 2);  // w1 is idle; w0 still runs task 1
  h.Advance(milliseconds(50));
  CHECK(h.outbox.Revoked("w0").empty());  // a short wait is no reason
  h.Advance(milliseconds(100));
  CHECK(h.outbox.Revoked("w0") == std::vector<std::uint64_t>{3});
  h.Advance(milliseconds(200));
  // Asked once, and not dealt elsewhere before w0 answers: it may have begun.
  CHECK(h.outbox.Revoked("w0") == std::vector<std::uint64_t>{3});
  CHECK(h.outbox.TaskIds("w1") == std::vector<std::uint64_t>{2, 4});
  h.Answer("w0", 3, {}, 2);  // skipped: no outcome
  CHECK(h.outbox.TaskIds("w1") == std::vector<std::uint64_t>{2, 4, 3});
  h.Answer("w1", 3, {4}, 2);
  REQUIRE(batch->wait_slot(2));
  CHECK(PoolHarness::Slot(*batch, 2) == "4");
  h.Answer("w0", 1, {0}, 2);
  CHECK(h.pool->Owns("w0"));
  REQUIRE(batch->ready());
  for (std::size_t i = 0; i < 4; ++i) CHECK(PoolHarness::Slot(*batch, i) == std::to_string(i * i));
  CHECK(h.pool->status().tasks_done == 4);
}

TEST_CASE("a task its worker had begun when asked to skip it stays that worker's: it runs once") {
  PoolHarness h(2);
  h.Connect("w0", 2);
  h.Connect("w1", 2);
  auto batch = h.SubmitSquares(4);
  h.Answer("w1", 2, {1}, 2);
  h.Answer("w1", 4, {9}, 2);
  h.Advance(milliseconds(150));
  REQUIRE(h.outbox.Revoked("w0") == std::vector<std::uint64_t>{3});
  h.Answer("w0", 1, {0}, 2);
  h.Answer("w0", 3, {4}, 2);  // it ran task 3 before the REVOKE came
  CHECK(h.pool->Owns("w0"));
  REQUIRE(batch->ready());
  CHECK(PoolHarness::Slot(*batch, 2) == "4");
  CHECK(h.outbox.TaskIds("w1") == std::vector<std::uint64_t>{2, 4});  // never dealt twice
  CHECK(h.pool->status().tasks_done == 4);
  h.Answer("w0", 3, {}, 2);  // nothing asked is left: a fault
  CHECK_FALSE(h.pool->Owns("w0"));
}
