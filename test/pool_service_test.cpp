// The rules of one pool, driven deterministically: scripted workers, a
// recorded outbox and a clock that moves only when the test says so.
#include <doctest/doctest.h>

#include <algorithm>

#include "support/pool_harness.hpp"
#include "wire/codec.hpp"

using fiber::WorkerState;
using fiber::testing::PoolHarness;
using fiber::testing::ScriptedBackend;
using fiber::wire::Type;
using std::chrono::milliseconds;

namespace {
bool Contains(const std::vector<Type>& types, Type type) {
  return std::find(types.begin(), types.end(), type) != types.end();
}
}  // namespace

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

TEST_CASE("resize while busy retires idle workers first and loses no task") {
  PoolHarness h(3);
  h.Connect("w0");
  h.Connect("w1");
  h.Connect("w2");
  auto batch = h.SubmitSquares(2);  // w0 and w1 busy, w2 idle
  h.pool->Resize(1, h.now);
  CHECK(Contains(h.outbox.Types("w2"), Type::kStop));  // idle: stops at once
  CHECK(h.pool->Workers().at(0).state == WorkerState::kReady);
  CHECK(h.pool->Workers().at(1).state == WorkerState::kRetiring);  // the newer of the two busy
  // The busy retiree finishes its task first, then is told to stop.
  CHECK_FALSE(Contains(h.outbox.Types("w1"), Type::kStop));
  h.Answer("w1", 2, {1});
  CHECK(Contains(h.outbox.Types("w1"), Type::kStop));
  h.Answer("w0", 1, {0});
  CHECK_FALSE(Contains(h.outbox.Types("w0"), Type::kStop));
  REQUIRE(batch->ready());
  CHECK(PoolHarness::Slot(*batch, 1) == "1");
}

TEST_CASE("silence loses no worker; a closed connection, found by the next heartbeat, does") {
  PoolHarness h(3);
  h.Connect("w0");
  h.Connect("w1");
  h.Connect("w2");
  auto batch = h.SubmitSquares(1);  // w0 busy
  h.Advance(milliseconds(6000));    // no word from anyone
  CHECK(h.pool->Owns("w0"));
  CHECK(h.pool->Owns("w1"));
  // ZeroMQ closed w1's connection (its heartbeats stopped): the next
  // HEARTBEAT to it, a heartbeat timeout after the last, cannot be sent.
  h.outbox.unreachable.insert("w1");
  h.Advance(milliseconds(5000));
  h.Advance(milliseconds(3000));  // no backend said how it ended
  CHECK_FALSE(h.pool->Owns("w1"));
  CHECK(h.pool->Owns("w2"));
  CHECK(Contains(h.outbox.Types("w2"), Type::kHeartbeat));
}

TEST_CASE("a worker whose connection closed is lost as its backend reports how it ended") {
  PoolHarness h(2);
  h.Connect("w0");
  h.Connect("w1");
  auto batch = h.SubmitSquares(1);  // w0 busy
  CHECK(h.pool->Probe("w1", h.now));  // still connected
  h.outbox.unreachable.insert("w0");
  CHECK_FALSE(h.pool->Probe("w0", h.now));
  ScriptedBackend::Crash(*h.backend, "w0", "killed by SIGSEGV", -11);
  h.Advance(milliseconds(100));
  CHECK_FALSE(h.pool->Owns("w0"));
  CHECK(h.outbox.TaskIds("w1") == std::vector<std::uint64_t>{1});  // its task moved on
  CHECK_FALSE(h.pool->Probe("w9", h.now));  // not a worker of this pool
}

TEST_CASE("a closed connection whose end no backend reports loses the worker a moment later") {
  PoolHarness h(2);
  h.Connect("w0");
  h.Connect("w1");
  auto batch = h.SubmitSquares(1);  // w0 busy
  h.outbox.unreachable.insert("w0");
  CHECK_FALSE(h.pool->Probe("w0", h.now));
  h.Advance(milliseconds(100));
  CHECK(h.pool->Owns("w0"));  // waiting to hear how it ended
  h.Advance(milliseconds(3000));
  CHECK_FALSE(h.pool->Owns("w0"));
  CHECK(h.outbox.TaskIds("w1") == std::vector<std::uint64_t>{1});
}

TEST_CASE("a worker lost with its connection is said and counted once, under the cause its engine tells later") {
  namespace word = fiber::backend::end_word;
  PoolHarness h(2);
  h.backend->kills_untold = true;  // as Slurm, whose squeue tells a moment later
  h.Connect("w0");
  h.Connect("w1");
  auto batch = h.SubmitSquares(1);  // w0 busy
  h.outbox.unreachable.insert("w0");
  CHECK_FALSE(h.pool->Probe("w0", h.now));
  h.Advance(milliseconds(3000));
  // Its task moved on at once; its loss waits for the engine's word.
  CHECK_FALSE(h.pool->Owns("w0"));
  CHECK(h.outbox.TaskIds("w1") == std::vector<std::uint64_t>{1});
  CHECK(h.pool->TakeSnapshot(h.now).lost_by_cause.empty());
  const auto time_limit = fiber::backend::Because(word::kTimeLimit, "its Slurm job reached its time limit");
  ScriptedBackend::Exit(*h.backend, {"w0", time_limit, fiber::ExitStatus::Killed(15)});
  h.Advance(milliseconds(100));
  auto s = h.pool->TakeSnapshot(h.now);
  CHECK(s.lost_by_cause == std::map<std::string, std::uint64_t>{{word::kTimeLimit, 1}});
  const auto lost = std::find_if(s.workers.begin(), s.workers.end(), [](const auto& w) { return w.id == "w0"; });
  REQUIRE(lost != s.workers.end());
  CHECK(lost->ended == "its Slurm job reached its time limit while running square (item 0)");
  // w1's connection lost too, and no engine ever tells: counted as that, once its wait ends.
  h.outbox.unreachable.insert("w1");
  CHECK_FALSE(h.pool->Probe("w1", h.now));
  h.Advance(milliseconds(3000));
  CHECK(h.pool->TakeSnapshot(h.now).lost_by_cause.size() == 1);
  h.Advance(milliseconds(10000));
  s = h.pool->TakeSnapshot(h.now);
  CHECK(s.lost_by_cause == std::map<std::string, std::uint64_t>{{word::kTimeLimit, 1}, {word::kConnectionLost, 1}});
  CHECK(s.counters.workers_lost == 2);
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

TEST_CASE("a worker that cannot start (exit 127) ends the pool at the first, with that reason") {
  PoolHarness h(2);
  auto batch = h.SubmitSquares(1);
  ScriptedBackend::Crash(*h.backend, "w0", "exit status 127", 127);
  h.Advance(milliseconds(100));
  REQUIRE(batch->ready());
  CHECK_THROWS_WITH_AS(fiber::detail::decode<int>(batch->at(0)),
                       "worker w0 could not start: exit status 127", fiber::WorkerLost);
  CHECK(h.Launched().size() == 2);  // none started in its place
}

TEST_CASE("a worker that never connects is replaced, and too many in a row break the pool") {
  PoolHarness h(1);
  auto batch = h.SubmitSquares(1);
  for (int i = 0; i < 4; ++i) h.Advance(milliseconds(61000));
  REQUIRE(batch->ready());
  CHECK_THROWS_WITH_AS(fiber::detail::decode<int>(batch->at(0)),
                       doctest::Contains("workers in a row ended before connecting"),
                       fiber::WorkerLost);
}

TEST_CASE("a backend that cannot start workers fails the pool's calls with its reason") {
  PoolHarness h(0);
  h.backend->fail_starts = true;
  h.pool->Resize(1, h.now);
  auto batch = h.SubmitSquares(1);
  REQUIRE(batch->ready());
  CHECK(PoolHarness::Slot(*batch, 0) == "the scripted backend cannot start workers: scripted failure");
}

TEST_CASE("a start the backend accepted and then could not make fails the pool's calls as a refused start does") {
  PoolHarness h(2);
  auto batch = h.SubmitSquares(1);
  fiber::backend::Exit exit{"w0", fiber::backend::Because(fiber::backend::end_word::kCannotStart, "no such image"),
                            fiber::ExitStatus::Exited(125)};
  exit.not_started = true;
  ScriptedBackend::Exit(*h.backend, exit);
  h.Advance(milliseconds(100));
  REQUIRE(batch->ready());
  CHECK(PoolHarness::Slot(*batch, 0) == "the scripted backend cannot start workers: no such image");
  CHECK(h.Launched().size() == 2);  // none started in its place
}

TEST_CASE("a closed pool stops its workers once drained and then finishes") {
  PoolHarness h(2);
  h.Connect("w0");
  h.Connect("w1");
  auto batch = h.SubmitSquares(1);
  h.pool->Close(h.now);
  CHECK_FALSE(Contains(h.outbox.Types("w0"), Type::kStop));
  h.Answer("w0", 1, {0});
  CHECK(Contains(h.outbox.Types("w0"), Type::kStop));
  CHECK(Contains(h.outbox.Types("w1"), Type::kStop));
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

TEST_CASE("a pool starts only so many workers at a time, and the next as each one connects") {
  PoolHarness h(100);
  const std::size_t at_once = h.Launched().size();
  CHECK(at_once > 0);
  CHECK(at_once < 100);
  h.Connect("w0");
  CHECK(h.Launched().size() == at_once + 1);
  ScriptedBackend::Crash(*h.backend, "w1", "exit status 1");  // a lost one makes room too
  h.Advance(milliseconds(100));
  CHECK(h.Launched().size() == at_once + 2);
}

TEST_CASE("an elastic pool starts its minimum and grows while tasks wait, up to its maximum") {
  PoolHarness h(fiber::master::PoolService::Options::Elastic{1, 4, milliseconds(1000)});
  CHECK(h.Launched() == std::vector<std::string>{"w0"});
  h.Connect("w0");
  CHECK(h.Launched().size() == 1);  // nothing waits
  auto batch = h.SubmitSquares(10);
  CHECK(h.outbox.TaskIds("w0") == std::vector<std::uint64_t>{1});
  CHECK(h.Launched() == std::vector<std::string>{"w0", "w1", "w2", "w3"});
  // Work goes to each new worker as it becomes ready: nothing waits for all.
  h.Connect("w1");
  CHECK(h.outbox.TaskIds("w1") == std::vector<std::uint64_t>{2});
  CHECK(h.pool->status().workers_wanted == 4);
}

TEST_CASE("an elastic pool retires workers idle for its idle timeout, never below its minimum") {
  PoolHarness h(fiber::master::PoolService::Options::Elastic{1, 3, milliseconds(1000)});
  auto batch = h.SubmitSquares(3);
  for (const char* id : {"w0", "w1", "w2"}) h.Connect(id);
  h.Answer("w0", 1, {0});
  h.Answer("w1", 2, {1});
  h.Advance(milliseconds(600));
  h.Answer("w2", 3, {4});
  REQUIRE(batch->ready());
  h.Advance(milliseconds(600));  // w0 and w1 idle 1.2 s, w2 0.6 s
  CHECK(Contains(h.outbox.Types("w0"), Type::kStop));
  CHECK_FALSE(Contains(h.outbox.Types("w2"), Type::kStop));
  // Stopping one of w0, w1 leaves two; the other stops too, down to w2.
  CHECK(Contains(h.outbox.Types("w1"), Type::kStop));
  h.Advance(milliseconds(2000));
  CHECK_FALSE(Contains(h.outbox.Types("w2"), Type::kStop));  // the minimum stays
  CHECK(h.pool->status().workers_wanted == 1);
  // A new burst grows it again.
  auto again = h.SubmitSquares(2);
  CHECK(h.Launched().size() == 4);
}

TEST_CASE("resize turns an elastic pool into a pool of that size") {
  PoolHarness h(fiber::master::PoolService::Options::Elastic{0, 8, milliseconds(1000)});
  CHECK(h.Launched().empty());
  h.pool->Resize(2, h.now);
  CHECK(h.Launched().size() == 2);
  auto batch = h.SubmitSquares(20);
  CHECK(h.Launched().size() == 2);  // no growth past the size asked for
}

TEST_CASE("a pool finishes only once its backend has seen a lost worker's process end") {
  PoolHarness h(1);
  h.Connect("w0");
  h.pool->Close(h.now);
  h.outbox.unreachable.insert("w0");  // its connection closed; the process may live on
  CHECK_FALSE(h.pool->Probe("w0", h.now));
  CHECK(h.finished == 0);
  h.Advance(milliseconds(100));  // the scripted backend reports the kill
  CHECK(h.finished == 1);
}

namespace {
fiber::master::PoolService::Options Options(int processes) {
  fiber::master::PoolService::Options o;
  o.processes = processes;
  return o;
}

// What the WELCOME to worker asked of its results.
bool ResultsAtOnce(const PoolHarness& h, const std::string& worker) {
  fiber::wire::Welcome welcome;
  std::string err;
  REQUIRE(fiber::wire::Decode(h.outbox.sent.at(worker).at(0), &welcome, &err));
  return welcome.results_at_once;
}
}  // namespace

TEST_CASE("a task running longer than task_timeout fails with TimeoutError and its worker is replaced") {
  auto o = Options(1);
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

TEST_CASE("max_tasks_per_child: a worker dealt that many tasks retires once they are done") {
  auto o = Options(1);
  o.max_tasks_per_child = 2;
  PoolHarness h(std::move(o));
  h.Connect("w0", 4);
  auto batch = h.SubmitSquares(5);
  CHECK(h.outbox.TaskIds("w0") == std::vector<std::uint64_t>{1, 2});  // not 4, its credit
  h.Answer("w0", 1, {0}, 4);
  CHECK(h.outbox.TaskIds("w0") == std::vector<std::uint64_t>{1, 2});
  CHECK(h.Launched().size() == 1);
  h.Answer("w0", 2, {1}, 4);
  CHECK(h.outbox.Types("w0").back() == Type::kStop);  // it exits gracefully
  CHECK(h.Launched() == std::vector<std::string>{"w0", "w1"});
  CHECK(h.backend->killed.empty());
  h.Connect("w1", 4);
  CHECK(h.outbox.TaskIds("w1") == std::vector<std::uint64_t>{3, 4});
  h.Answer("w1", 3, {4}, 4);
  h.Answer("w1", 4, {9}, 4);
  h.Connect("w2", 4);
  CHECK(h.outbox.TaskIds("w2") == std::vector<std::uint64_t>{5});
  h.Answer("w2", 5, {16}, 4);
  REQUIRE(batch->ready());
  for (std::size_t i = 0; i < 5; ++i) CHECK(PoolHarness::Slot(*batch, i) == std::to_string(i * i));
}

TEST_CASE("a task queued behind a slow one is taken back for an idle worker, and skipped by the busy one") {
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
  CHECK(h.outbox.TaskIds("w1") == std::vector<std::uint64_t>{2, 4, 3});
  h.Answer("w1", 3, {4}, 2);
  REQUIRE(batch->wait_slot(2));
  CHECK(PoolHarness::Slot(*batch, 2) == "4");
  h.Answer("w0", 1, {0}, 2);
  h.Answer("w0", 3, {}, 2);  // skipped: no outcome
  CHECK(h.pool->Owns("w0"));
  REQUIRE(batch->ready());
  for (std::size_t i = 0; i < 4; ++i) CHECK(PoolHarness::Slot(*batch, i) == std::to_string(i * i));
  CHECK(h.pool->status().tasks_done == 4);
}

TEST_CASE("a stolen task that its first worker had started counts once: that worker's result is dropped") {
  PoolHarness h(2);
  h.Connect("w0", 2);
  h.Connect("w1", 2);
  auto batch = h.SubmitSquares(4);
  h.Answer("w1", 2, {1}, 2);
  h.Answer("w1", 4, {9}, 2);
  h.Advance(milliseconds(150));
  REQUIRE(h.outbox.Revoked("w0") == std::vector<std::uint64_t>{3});
  h.Answer("w0", 1, {0}, 2);
  h.Answer("w0", 3, {99}, 2);  // it ran task 3 before the REVOKE came
  CHECK(h.pool->Owns("w0"));
  CHECK_FALSE(batch->wait_slot(2, std::chrono::steady_clock::now()));
  h.Answer("w1", 3, {4}, 2);
  REQUIRE(batch->ready());
  CHECK(PoolHarness::Slot(*batch, 2) == "4");
  h.Answer("w0", 3, {}, 2);  // nothing revoked is left: a fault
  CHECK_FALSE(h.pool->Owns("w0"));
}

TEST_CASE("a closed pool still replaces a spent or lost worker while tasks remain") {
  auto o = Options(1);
  o.max_tasks_per_child = 1;
  PoolHarness h(std::move(o));
  h.Connect("w0", 2);
  auto batch = h.SubmitSquares(3);
  h.pool->Close(h.now);
  h.Answer("w0", 1, {0}, 2);
  CHECK(h.Launched() == std::vector<std::string>{"w0", "w1"});
  h.Connect("w1", 2);
  ScriptedBackend::Crash(*h.backend, "w1", "killed by SIGKILL");
  h.Advance(milliseconds(100));
  CHECK(h.Launched().back() == "w2");
  h.Connect("w2", 2);
  h.Answer("w2", 2, {1}, 2);
  h.Connect("w3", 2);
  h.Answer("w3", 3, {4}, 2);
  REQUIRE(batch->ready());
  CHECK(h.Launched().size() == 4);  // none once every task is done
  h.Advance(milliseconds(100));
  CHECK(h.Launched().size() == 4);
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
