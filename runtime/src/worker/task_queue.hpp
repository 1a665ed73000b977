// The tasks a worker holds, in the order dealt: the TASK messages it read,
// their tasks parsed in place, and which of those it was asked to skip
// (REVOKE) before it started them. A task once started is never skipped,
// so a task the master takes back for another worker runs only there.
// Not thread-safe: the serve loop guards it with its socket's lock.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <unordered_set>
#include <vector>
#include <zmq.hpp>

#include "wire/task_batch.hpp"

namespace fiber::worker {

class TaskQueue {
 public:
  /// Queues the tasks of a TASK message; false with *err when it is malformed.
  [[nodiscard]] bool Add(zmq::message_t message, std::string* err);
  bool empty() const { return queue_.empty(); }

  /// The next task not revoked, started from now on: no Revoke skips it
  /// (those revoked, answered already, are passed over); nullptr when none
  /// is left. Call Done once it has run, before the next Start.
  const wire::TaskView* Start();
  void Done();

  /// Marks task id, held and not started, to be skipped; false when no
  /// such task is here (it ran or runs: its result is the answer).
  bool Revoke(std::uint64_t id);

 private:
  // A TASK message and the tasks it holds. Never moved once parsed
  // (std::deque keeps its elements in place): the views point into it.
  struct Received {
    explicit Received(zmq::message_t m) : message(std::move(m)) {}
    zmq::message_t message;
    std::vector<wire::TaskView> tasks;
    std::size_t next = 0;  // the first not started
  };
  std::deque<Received> queue_;
  std::unordered_set<const wire::TaskView*> revoked_;  // in queue_, not started
};

}  // namespace fiber::worker
