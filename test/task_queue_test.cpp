// A worker's queue of held tasks: run in the order dealt, and a task asked
// to be skipped (REVOKE) is skipped only while it has not started.
#include <doctest/doctest.h>

#include "wire/message.hpp"
#include "wire/task_batch.hpp"
#include "worker/task_queue.hpp"

using fiber::worker::TaskQueue;
using namespace fiber::wire;

namespace {

// A TASK message of tasks with these ids, each one call of "square".
zmq::message_t Tasks(std::initializer_list<std::uint64_t> ids) {
  Writer tasks(Type::kTask);
  for (std::uint64_t id : ids) AppendTask(tasks, id, "square", TaskForm::kCalls, {"x"});
  return tasks.Finish();
}

// Starts and finishes the next task; its id, or 0 when none is left.
std::uint64_t RunNext(TaskQueue& q) {
  const TaskView* task = q.Start();
  if (!task) return 0;
  const std::uint64_t id = task->id;
  q.Done();
  return id;
}

}  // namespace

TEST_CASE("held tasks run in the order dealt, across messages") {
  TaskQueue q;
  std::string err;
  REQUIRE(q.Add(Tasks({1, 2}), &err));
  REQUIRE(q.Add(Tasks({3}), &err));
  CHECK(RunNext(q) == 1);
  CHECK(RunNext(q) == 2);
  CHECK(RunNext(q) == 3);
  CHECK(q.empty());
  CHECK(RunNext(q) == 0);
}

TEST_CASE("a revoked task not started is passed over; one started cannot be revoked") {
  TaskQueue q;
  std::string err;
  REQUIRE(q.Add(Tasks({1, 2, 3, 4}), &err));
  const TaskView* running = q.Start();
  REQUIRE(running);
  CHECK(running->id == 1);
  CHECK_FALSE(q.Revoke(1));  // it runs: its result is the answer
  CHECK(q.Revoke(3));
  CHECK_FALSE(q.Revoke(3));  // once
  CHECK_FALSE(q.Revoke(9));  // never held
  q.Done();
  CHECK(RunNext(q) == 2);
  CHECK(RunNext(q) == 4);  // 3 skipped
  CHECK(q.empty());
}

TEST_CASE("a revoked last task leaves nothing to run") {
  TaskQueue q;
  std::string err;
  REQUIRE(q.Add(Tasks({5}), &err));
  CHECK(q.Revoke(5));
  CHECK(q.Start() == nullptr);
  CHECK(q.empty());
}

TEST_CASE("a malformed or empty TASK adds nothing") {
  TaskQueue q;
  std::string err;
  const std::string garbage = "\x01\x02";
  CHECK_FALSE(q.Add(zmq::message_t(garbage.data(), garbage.size()), &err));
  CHECK_FALSE(err.empty());
  CHECK(q.empty());
  REQUIRE(q.Add(Tasks({}), &err));
  CHECK(q.empty());
}
