// The worker set: states, retirement order and deadlines.
#include <doctest/doctest.h>

#include "backend/slurm/job_state.hpp"
#include "master/worker_set.hpp"

using fiber::WorkerState;
using fiber::master::Clock;
using fiber::master::Deadlines;
using fiber::master::TaskTable;
using fiber::master::WorkerSet;
using std::chrono::milliseconds;

namespace {
const Deadlines kDeadlines{milliseconds(60000), milliseconds(500), milliseconds(5000)};
const Clock::time_point t0 = Clock::time_point() + std::chrono::hours(1);
}  // namespace

TEST_CASE("a worker connects once and is ready once it has credit") {
  WorkerSet set;
  set.Add("w0", t0);
  CHECK(set.Find("w0")->state == WorkerState::kStarting);
  CHECK(set.Connect("w0", 123));
  CHECK_FALSE(set.Connect("w0", 123));  // already connected
  CHECK_FALSE(set.Connect("w9", 1));    // never started
  set.SetCredit(*set.Find("w0"), 4);
  CHECK(set.Find("w0")->state == WorkerState::kReady);
  CHECK(set.Describe(TaskTable(3)).at(0).pid == 123);
}

TEST_CASE("retirement takes starting workers first, then those holding fewest tasks, then the newest (the last jobs empty first)") {
  WorkerSet set;
  TaskTable tasks(3);
  auto batch = std::make_shared<fiber::detail::Batch>(1);
  for (const char* id : {"w0", "w1", "w2"}) {
    set.Add(id, t0);
    REQUIRE(set.Connect(id, 1));
    set.SetCredit(*set.Find(id), 2);
  }
  set.Add("w3", t0);  // still starting
  tasks.Add({"f", {"x"}, batch, 0});
  tasks.LeaseNext("w0");
  CHECK(set.PickRetirees(2, tasks) == std::vector<std::string>{"w3", "w2"});
  CHECK(set.PickRetirees(1, tasks) == std::vector<std::string>{"w3", "w2", "w1"});
  CHECK(set.PickRetirees(4, tasks).empty());
  CHECK(set.Live() == 4);
  set.Retire(*set.Find("w3"));
  CHECK(set.Live() == 3);
}

TEST_CASE("deadlines: no connection in time, a stop not obeyed, a heartbeat due") {
  WorkerSet set;
  TaskTable tasks(3);
  set.Add("late", t0);
  set.Add("silent", t0);
  REQUIRE(set.Connect("silent", 1));
  set.Add("stubborn", t0);
  REQUIRE(set.Connect("stubborn", 1));
  set.MarkStopSent(*set.Find("stubborn"), t0);
  auto due = set.Due(t0 + milliseconds(1000), kDeadlines);
  CHECK(due.lost.empty());
  CHECK(due.heartbeat == std::vector<std::string>{"silent", "stubborn"});
  // A connected worker is never lost for silence: its connection closing
  // (a failed HEARTBEAT) tells.
  due = set.Due(t0 + milliseconds(6000), kDeadlines);
  CHECK(due.lost.empty());
  CHECK(due.kill == std::vector<std::string>{"stubborn"});
  due = set.Due(t0 + milliseconds(61000), kDeadlines);
  CHECK(due.lost.at(0).first == "late");
  CHECK(due.lost.at(0).second.text == "it did not connect within 60.0 s");
}

TEST_CASE("a worker that ends leaves the set, its cause kept for views; losses counted by cause") {
  namespace word = fiber::backend::end_word;
  WorkerSet set;
  set.Add("w0", t0);
  set.Add("w1", t0);
  set.End({"w0", fiber::backend::Because(word::kSignal, "killed by SIGSEGV"), "boom (item 3)", 2, true, t0});
  set.End({"w1", fiber::backend::Because(word::kExited, "exit status 0"), "", 0, false, t0});
  set.End({"w7", fiber::backend::Because(word::kExited, "exit status 0"), "", 0, true, t0});  // not in it: nothing
  CHECK(set.empty());
  REQUIRE(set.ended().size() == 2);
  CHECK(set.ended()[0].id == "w0");
  CHECK(set.ended()[0].cause.text == "killed by SIGSEGV");
  CHECK(set.ended()[0].task == "boom (item 3)");
  CHECK(set.ended()[0].retries_left == 2);
  // Retired as asked is no loss.
  CHECK(set.lost_by_cause() == std::map<std::string, std::uint64_t>{{word::kSignal, 1}});
  // However many workers a long run loses, the record stays bounded.
  for (std::size_t i = 0; i < fiber::master::kMostEndedKept + 10; ++i) {
    const std::string id = "x" + std::to_string(i);
    set.Add(id, t0);
    set.End({id, fiber::backend::OutOfMemory(), "", 0, true, t0});
  }
  CHECK(set.ended().size() == fiber::master::kMostEndedKept);
  CHECK(set.ended().back().id == "x" + std::to_string(fiber::master::kMostEndedKept + 9));
  CHECK(set.lost_by_cause().at(word::kOom) == fiber::master::kMostEndedKept + 10);
}

TEST_CASE("a loss held until its engine tells why is kept and counted once, with that cause or as held") {
  namespace word = fiber::backend::end_word;
  namespace job_word = fiber::backend::job_end_word;
  WorkerSet set;
  for (const char* id : {"w0", "w1", "w2"}) set.Add(id, t0);
  const auto connection = fiber::backend::Because(word::kConnectionLost, "its connection was lost");
  set.End({"w0", connection, "", 0, true, t0}, /*held=*/true);
  set.End({"w1", connection, "", 0, true, t0}, /*held=*/true);
  set.End({"w2", fiber::backend::Because(word::kSignal, "killed by SIGSEGV"), "", 0, true, t0});
  // Held: neither shown nor counted yet.
  CHECK(set.Held() == std::vector<std::string>{"w0", "w1"});
  REQUIRE(set.ended().size() == 1);
  CHECK(set.lost_by_cause() == std::map<std::string, std::uint64_t>{{word::kSignal, 1}});
  const auto time_limit = fiber::backend::EngineOnly(job_word::kTimeLimit, "its Slurm job reached its time limit");
  const auto told = set.Settle("w0", &time_limit);
  REQUIRE(told);
  CHECK(told->cause == time_limit);
  CHECK(set.ended().back().cause == time_limit);
  const auto untold = set.Settle("w1", nullptr);  // its wait for the engine ended
  REQUIRE(untold);
  CHECK(untold->cause == connection);
  CHECK(set.lost_by_cause() ==
        std::map<std::string, std::uint64_t>{{word::kSignal, 1}, {job_word::kTimeLimit, 1}, {word::kConnectionLost, 1}});
  CHECK_FALSE(set.Settle("w0", &time_limit));  // told once
  CHECK_FALSE(set.Settle("w2", &time_limit));  // its own end said already
  CHECK(set.Held().empty());
}
