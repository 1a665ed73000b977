// The pool's service: its two roles wired together (a loss found by the
// crew moves the dealt tasks on; a break fails every call), driven
// deterministically: scripted workers, a recorded outbox and a clock that
// moves only when the test says so. Each role has its own test:
// dealing_test.cpp, crew_test.cpp.
#include <doctest/doctest.h>

#include <algorithm>

#include "fiber/errors.hpp"
#include "support/pool_harness.hpp"
#include "wire/codec.hpp"

using fiber::WorkerState;
using fiber::testing::PoolHarness;
using fiber::testing::ScriptedBackend;
using fiber::wire::Type;
using std::chrono::milliseconds;

TEST_CASE("a lost worker's tasks go back to the front of the queue, in order") {
  PoolHarness h(2);
  h.Connect("w0", 3);
  auto batch = h.SubmitSquares(6);
  CHECK(h.outbox.TaskIds("w0") == std::vector<std::uint64_t>{1, 2, 3});
  ScriptedBackend::Crash(*h.backend, "w0", "killed by SIGKILL");
  h.Advance(milliseconds(100));
  CHECK(h.Launched().back() == "w2");  // replaced
  h.Connect("w1", 3);
  // Tasks 1-3 come before 4-6, which never left the queue.
  CHECK(h.outbox.TaskIds("w1") == std::vector<std::uint64_t>{1, 2, 3});
  for (std::uint64_t t = 1; t <= 3; ++t) h.Answer("w1", t, {static_cast<int>(t - 1) * static_cast<int>(t - 1)}, 3);
  CHECK(h.outbox.TaskIds("w1") == std::vector<std::uint64_t>{1, 2, 3, 4, 5, 6});
  for (std::uint64_t t = 4; t <= 6; ++t) h.Answer("w1", t, {static_cast<int>(t - 1) * static_cast<int>(t - 1)}, 3);
  REQUIRE(batch->ready());
  for (std::size_t i = 0; i < 6; ++i) CHECK(PoolHarness::Slot(*batch, i) == std::to_string(i * i));
}

TEST_CASE("a task lost more often than max_task_retries fails with WorkerLost") {
  PoolHarness h(1, /*max_task_retries=*/1);
  auto batch = h.SubmitSquares(1);
  h.Connect("w0");
  ScriptedBackend::Crash(*h.backend, "w0", "exit status 1");
  h.Advance(milliseconds(100));
  h.Connect("w1");
  CHECK(h.outbox.TaskIds("w1") == std::vector<std::uint64_t>{1});  // one retry
  ScriptedBackend::Crash(*h.backend, "w1", "killed by SIGKILL");
  h.Advance(milliseconds(100));
  REQUIRE(batch->ready());
  CHECK_THROWS_WITH_AS(fiber::detail::decode<int>(batch->at(0)),
                       "task 'square' was lost with its worker 2 times (the last, w1: killed "
                       "by SIGKILL while running square (item 0))",
                       fiber::WorkerLost);
}

TEST_CASE("a task that kills every worker it is given fails with the signal, task and item") {
  PoolHarness h(1, /*max_task_retries=*/1);
  auto batch = h.SubmitSquares(3);
  h.Connect("w0");
  h.Answer("w0", 1, {0});
  h.Answer("w0", 2, {1});
  for (const char* id : {"w0", "w1"}) {
    if (std::string(id) == "w1") h.Connect(id);
    h.outbox.unreachable.insert(id);  // its connection shows closed first
    CHECK_FALSE(h.pool->Probe(id, h.now));
    ScriptedBackend::Crash(*h.backend, id, "killed by SIGSEGV", -11);
    h.Advance(milliseconds(100));
  }
  REQUIRE(batch->ready());
  CHECK(PoolHarness::Slot(*batch, 1) == "1");
  CHECK_THROWS_WITH_AS(fiber::detail::decode<int>(batch->at(2)),
                       "task 'square' was lost with its worker 2 times (the last, w1: killed "
                       "by SIGSEGV while running square (item 2))",
                       fiber::WorkerLost);
}

TEST_CASE("a closed pool stops its workers once drained and then finishes") {
  PoolHarness h(2);
  h.Connect("w0");
  h.Connect("w1");
  auto batch = h.SubmitSquares(1);
  h.pool->Close(h.now);
  CHECK_FALSE(h.outbox.Sent("w0", Type::kStop));
  h.Answer("w0", 1, {0});
  CHECK(h.outbox.Sent("w0", Type::kStop));
  CHECK(h.outbox.Sent("w1", Type::kStop));
  CHECK(h.finished == 0);
  ScriptedBackend::Crash(*h.backend, "w0", "exit status 0");
  ScriptedBackend::Crash(*h.backend, "w1", "exit status 0");
  h.Advance(milliseconds(100));
  CHECK(h.finished == 1);
}

TEST_CASE("terminate fails what is unfinished with PoolClosed and kills every worker") {
  PoolHarness h(1);
  h.Connect("w0");
  auto batch = h.SubmitSquares(3);
  h.pool->Terminate(h.now);
  REQUIRE(batch->ready());
  CHECK_THROWS_AS(fiber::detail::decode<int>(batch->at(2)), fiber::PoolClosed);
  std::lock_guard<std::mutex> lock(h.backend->mu);
  CHECK(std::count(h.backend->killed.begin(), h.backend->killed.end(), "w0") == 1);
}

TEST_CASE("an initializer that throws fails every call with its type and message") {
  PoolHarness h(1, 3, fiber::Call{"init_throws", "x"});
  auto batch = h.SubmitSquares(2);
  REQUIRE(h.pool->OnHello("w0", fiber::wire::Hello{1}, h.now));
  h.Deliver("w0", fiber::wire::Encode(fiber::wire::InitFailed{{"std::runtime_error", "no seed"}},
                                      PoolHarness::kChannel));
  REQUIRE(batch->ready());
  try {
    fiber::detail::decode<int>(batch->at(0));
    FAIL("no error");
  } catch (const fiber::RemoteError& e) {
    CHECK(e.type() == "std::runtime_error");
    CHECK(e.message() == "the pool initializer failed in worker w0: no seed");
  }
}

TEST_CASE("a worker that sends what only a master sends is lost") {
  PoolHarness h(1);
  h.Connect("w0");
  h.Deliver("w0", fiber::wire::EncodeControl(Type::kStop, PoolHarness::kChannel));
  CHECK_FALSE(h.pool->Owns("w0"));
}

TEST_CASE("a pool's snapshot counts tasks submitted, done and retried, and shows busy and lost workers") {
  PoolHarness h(2);
  h.Connect("w0", 1);
  h.Connect("w1", 1);
  auto batch = h.SubmitSquares(4);
  h.now += milliseconds(300);
  h.Answer("w0", 1, {0}, 1);  // w0 then takes task 3
  auto s = h.pool->TakeSnapshot(h.now);
  CHECK(s.counters.tasks_submitted == 4);
  CHECK(s.counters.items_submitted == 4);
  CHECK(s.counters.tasks_done == 1);
  CHECK(s.counters.items_done == 1);
  CHECK(s.counters.durations.count == 1);
  CHECK(s.counters.durations.sum_seconds == doctest::Approx(0.3));
  CHECK(s.status.tasks_queued == 1);
  REQUIRE(s.workers.size() == 2);
  CHECK(s.workers[0].state == "busy");
  CHECK(s.workers[0].tasks_done == 1);
  CHECK(s.workers[1].task == "square (item 1)");
  CHECK(s.workers[1].task_seconds == doctest::Approx(0.3));
  CHECK(s.eta_seconds.has_value());
  // w1 dies holding task 2: it is retried, and w1 shows as lost, with why.
  ScriptedBackend::Crash(*h.backend, "w1", "killed by SIGSEGV");
  h.Advance(milliseconds(100));
  s = h.pool->TakeSnapshot(h.now);
  CHECK(s.counters.tasks_retried == 1);
  CHECK(s.counters.workers_lost == 1);
  CHECK(s.counters.workers_started == 3);  // w1's replacement
  const auto lost = std::find_if(s.workers.begin(), s.workers.end(), [](const auto& w) { return w.id == "w1"; });
  REQUIRE(lost != s.workers.end());
  CHECK(lost->state == "lost");
  CHECK(lost->ended == "killed by SIGSEGV while running square (item 1)");
}
