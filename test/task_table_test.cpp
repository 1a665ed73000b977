// The task table: leases, the queue's order, and retry counts.
#include <doctest/doctest.h>

#include "master/task_table.hpp"

using fiber::detail::Batch;
using fiber::detail::Outcome;
using fiber::master::Task;
using fiber::master::TaskTable;

namespace {
Task MakeTask(const std::shared_ptr<Batch>& batch, std::size_t first, std::size_t calls = 1) {
  return Task{"f", std::vector<std::string>(calls, "x"), batch, first};
}
}  // namespace

TEST_CASE("tasks are leased in the order they were added, and a lease is known by its holder") {
  auto batch = std::make_shared<Batch>(3);
  TaskTable table(3);
  const auto a = table.Add(MakeTask(batch, 0));
  const auto b = table.Add(MakeTask(batch, 1, 2));
  CHECK(table.LeaseNext("w0") == a);
  CHECK(table.LeaseNext("w0") == b);
  CHECK_FALSE(table.HasPending());
  CHECK(table.CallsHeldBy(a, "w0") == 1);
  CHECK(table.CallsHeldBy(b, "w0") == 2);
  CHECK_FALSE(table.CallsHeldBy(a, "w1"));
  CHECK(table.Leases("w0") == 2);
  CHECK(table.CallsLeasedTo("w0") == 3);
  CHECK_FALSE(table.Finish(a, "w1", {Outcome{Outcome::Kind::kValue, "v", {}}}));  // not its holder
  CHECK_FALSE(batch->ready());
  const auto finished = table.Finish(a, "w0", {Outcome{Outcome::Kind::kValue, "v", {}}});
  REQUIRE(finished);
  CHECK(finished->done);
  CHECK(finished->batch == batch);
  CHECK(table.Leases("w0") == 1);
  CHECK_FALSE(table.CallsHeldBy(a, "w0"));
  CHECK_FALSE(table.Finish(a, "w0", {Outcome{Outcome::Kind::kValue, "again", {}}}));
  CHECK(batch->wait_slot(0));
}

TEST_CASE("a lost worker's tasks return to the front in their order") {
  auto batch = std::make_shared<Batch>(4);
  TaskTable table(3);
  for (std::size_t i = 0; i < 4; ++i) table.Add(MakeTask(batch, i));
  const auto first = table.LeaseNext("w0");
  const auto second = table.LeaseNext("w0");
  table.Lose("w0", "gone");
  CHECK(table.Leases("w0") == 0);
  CHECK(table.pending() == 4);
  CHECK(table.LeaseNext("w1") == first);
  CHECK(table.LeaseNext("w1") == second);
}

TEST_CASE("a task fails with WorkerLost once lost more than the retry limit") {
  auto batch = std::make_shared<Batch>(1);
  TaskTable table(1);
  table.Add(MakeTask(batch, 0));
  CHECK(table.RetriesLeft("w0") == 1);  // holding nothing: the limit
  table.LeaseNext("w0");
  CHECK(table.RetriesLeft("w0") == 1);  // lost now, it runs again once more
  table.Lose("w0", "first");
  CHECK_FALSE(batch->ready());
  table.LeaseNext("w1");
  CHECK(table.RetriesLeft("w1") == 0);  // lost now, it fails
  table.Lose("w1", "exit status 1");
  REQUIRE(batch->ready());
  CHECK(batch->at(0).kind == Outcome::Kind::kWorkerLost);
  CHECK(batch->at(0).data == "task 'f' was lost with its worker 2 times (the last, w1: exit status 1)");
  CHECK(table.size() == 0);
}

TEST_CASE("FailAll finishes every task, pending or leased, with one outcome") {
  auto batch = std::make_shared<Batch>(2);
  TaskTable table(3);
  table.Add(MakeTask(batch, 0));
  table.Add(MakeTask(batch, 1));
  table.LeaseNext("w0");
  table.FailAll({Outcome::Kind::kPoolClosed, "pool terminated", {}});
  REQUIRE(batch->ready());
  CHECK(batch->at(1).kind == Outcome::Kind::kPoolClosed);
  CHECK(table.size() == 0);
  CHECK(table.Leases("w0") == 0);
  CHECK_FALSE(table.HasPending());
}

TEST_CASE("the table counts tasks done and failed, and names the function a worker runs") {
  auto batch = std::make_shared<Batch>(4);
  TaskTable table(0);
  for (std::size_t i = 0; i < 4; ++i) table.Add(Task{i == 0 ? "g" : "f", {"x"}, batch, i});
  const auto a = table.LeaseNext("w0");
  const auto b = table.LeaseNext("w1");
  CHECK(table.Running("w0").rfind("g (item", 0) == 0);
  CHECK(table.Running("w1").rfind("f (item", 0) == 0);
  CHECK(table.Running("w2") == "");
  CHECK(table.Finish(a, "w0", {Outcome{Outcome::Kind::kValue, "v", {}}})->done);
  CHECK_FALSE(table.Finish(b, "w1", {Outcome{Outcome::Kind::kRemoteError, "boom", "std::runtime_error"}})->done);
  table.LeaseNext("w0");
  table.Lose("w0", "gone");  // no retries: it fails
  CHECK(table.done() == 1);
  CHECK(table.failed() == 2);
  table.FailAll({Outcome::Kind::kPoolClosed, "pool terminated", {}});
  CHECK(table.failed() == 3);
  CHECK(table.done() == 1);
}

TEST_CASE("TakeBack returns a task its worker skipped to the front; the worker keeps the others") {
  auto batch = std::make_shared<Batch>(4);
  TaskTable table(3);
  for (std::size_t i = 0; i < 4; ++i) table.Add(MakeTask(batch, i));
  const auto first = table.LeaseNext("w0");
  const auto second = table.LeaseNext("w0");
  CHECK(table.LeasesOf("w0") == std::vector<std::uint64_t>{first, second});
  CHECK_FALSE(table.TakeBack("w1", second));  // not w1's
  CHECK(table.TakeBack("w0", second));
  CHECK_FALSE(table.TakeBack("w0", second));  // once
  CHECK(table.LeasesOf("w0") == std::vector<std::uint64_t>{first});
  CHECK(table.Oldest("w0") == first);
  CHECK(table.LeaseNext("w1") == second);  // ahead of those never dealt
  CHECK(table.Oldest("w2") == 0);
  CHECK(table.LeasesOf("w2").empty());
}

TEST_CASE("GiveBack returns a worker's tasks in order without counting a loss") {
  auto batch = std::make_shared<Batch>(2);
  TaskTable table(0);  // a single loss would fail them
  table.Add(MakeTask(batch, 0));
  table.Add(MakeTask(batch, 1));
  const auto a = table.LeaseNext("w0");
  const auto b = table.LeaseNext("w0");
  table.GiveBack("w0");
  CHECK(table.Leases("w0") == 0);
  CHECK(table.pending() == 2);
  CHECK(table.failed() == 0);
  CHECK(table.LeaseNext("w1") == a);
  CHECK(table.LeaseNext("w1") == b);
}
