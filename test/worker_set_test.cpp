// The worker set: states, retirement order and deadlines.
#include <doctest/doctest.h>

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
  CHECK(due.lost.at(0).second == "it did not connect within 60.0 s");
}
