// A pool's crew: starting, connecting, probing, retiring, resizing and
// losing workers; driven through the pool by scripted workers and a clock
// moved by hand, and on its own.
#include <doctest/doctest.h>

#include <algorithm>

#include "backend/slurm/job_state.hpp"
#include "fiber/errors.hpp"
#include "master/crew.hpp"
#include "support/pool_harness.hpp"
#include "support/recording_outbox.hpp"
#include "wire/codec.hpp"

using fiber::WorkerState;
using fiber::testing::PoolHarness;
using fiber::testing::ScriptedBackend;
using fiber::wire::Type;
using std::chrono::milliseconds;

namespace {
namespace word = fiber::backend::end_word;
namespace job_word = fiber::backend::job_end_word;

// A pool's crew on its own: a scripted backend, a task table the test
// fills, and a clock in the test's hands.
struct CrewRig {
  CrewRig() {
    options.channel = PoolHarness::kChannel;
    options.new_worker_id = [this] { return "w" + std::to_string(next_worker++); };
  }
  fiber::master::Clock::time_point now = fiber::master::Clock::time_point() + std::chrono::hours(1);
  fiber::master::PoolServiceOptions options;
  fiber::master::PoolPhase phase;
  fiber::master::TaskTable tasks{3};
  fiber::testing::RecordingOutbox outbox;
  std::shared_ptr<ScriptedBackend::State> backend = std::make_shared<ScriptedBackend::State>();
  fiber::master::PoolStats stats{now};
  int next_worker = 0;
  fiber::master::Crew crew{options, phase, tasks, std::make_unique<ScriptedBackend>(backend), outbox, stats};
};
}  // namespace

TEST_CASE("a crew ends a worker once: said with the task it ran, killed, and awaited until its backend sees the end") {
  using fiber::master::Crew;
  CrewRig rig;
  CHECK_FALSE(rig.crew.StartWorkers(rig.now));
  CHECK(rig.crew.Connect("w0", 42, rig.now) == Crew::Hello::kWelcomed);
  CHECK(rig.crew.Connect("w0", 42, rig.now) == Crew::Hello::kRefused);  // connected already
  auto batch = std::make_shared<fiber::detail::Batch>(1);
  rig.tasks.Add(fiber::master::Task{"square", {"x"}, batch, 0, 3, 1});
  rig.tasks.LeaseNext("w0", rig.now);
  const auto loss = rig.crew.End("w0", fiber::backend::Because(word::kSignal, "killed by SIGSEGV"), rig.now);
  REQUIRE(loss);
  CHECK(loss->lost);
  CHECK(loss->why == "killed by SIGSEGV while running square (item 3)");
  CHECK_FALSE(rig.crew.End("w0", fiber::backend::Because(word::kSignal, "again"), rig.now));
  CHECK(rig.backend->killed == std::vector<std::string>{"w0"});
  CHECK(rig.tasks.Leases("w0") == 1);  // its tasks are its caller's to move on
  CHECK(rig.crew.workers().lost_by_cause() == std::map<std::string, std::uint64_t>{{word::kSignal, 1}});
  CHECK_FALSE(rig.crew.gone());  // until its backend has seen it end
  rig.crew.Exited("w0");
  CHECK(rig.crew.gone());
}

TEST_CASE("a crew whose backend cannot start workers hands back why, and keeps none") {
  CrewRig rig;
  rig.backend->fail_starts = true;
  CHECK(rig.crew.StartWorkers(rig.now) == "the scripted backend cannot start workers: scripted failure");
  CHECK(rig.crew.workers().empty());
  CHECK(rig.stats.counters().workers_started == 0);
}

TEST_CASE("resize while busy retires idle workers first and loses no task") {
  PoolHarness h(3);
  h.Connect("w0");
  h.Connect("w1");
  h.Connect("w2");
  auto batch = h.SubmitSquares(2);  // w0 and w1 busy, w2 idle
  h.pool->Resize(1, h.now);
  CHECK(h.outbox.Sent("w2", Type::kStop));  // idle: stops at once
  CHECK(h.pool->Workers().at(0).state == WorkerState::kReady);
  CHECK(h.pool->Workers().at(1).state == WorkerState::kRetiring);  // the newer of the two busy
  // The busy retiree finishes its task first, then is told to stop.
  CHECK_FALSE(h.outbox.Sent("w1", Type::kStop));
  h.Answer("w1", 2, {1});
  CHECK(h.outbox.Sent("w1", Type::kStop));
  h.Answer("w0", 1, {0});
  CHECK_FALSE(h.outbox.Sent("w0", Type::kStop));
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
  CHECK(h.outbox.Sent("w2", Type::kHeartbeat));
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
  const auto time_limit = fiber::backend::EngineOnly(job_word::kTimeLimit, "its Slurm job reached its time limit");
  ScriptedBackend::Exit(*h.backend, {"w0", time_limit, fiber::ExitStatus::Killed(15)});
  h.Advance(milliseconds(100));
  auto s = h.pool->TakeSnapshot(h.now);
  CHECK(s.lost_by_cause == std::map<std::string, std::uint64_t>{{job_word::kTimeLimit, 1}});
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
  CHECK(s.lost_by_cause == std::map<std::string, std::uint64_t>{{job_word::kTimeLimit, 1}, {word::kConnectionLost, 1}});
  CHECK(s.counters.workers_lost == 2);
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
  CHECK(h.outbox.Sent("w0", Type::kStop));
  CHECK_FALSE(h.outbox.Sent("w2", Type::kStop));
  // Stopping one of w0, w1 leaves two; the other stops too, down to w2.
  CHECK(h.outbox.Sent("w1", Type::kStop));
  h.Advance(milliseconds(2000));
  CHECK_FALSE(h.outbox.Sent("w2", Type::kStop));  // the minimum stays
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

TEST_CASE("max_tasks_per_child: a worker dealt that many tasks retires once they are done") {
  auto o = PoolHarness::OptionsOf(1);
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

TEST_CASE("a closed pool still replaces a spent or lost worker while tasks remain") {
  auto o = PoolHarness::OptionsOf(1);
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
