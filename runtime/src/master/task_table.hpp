// The master's record of every unfinished task: pending ones in dispatch
// order, leased ones with the worker that holds them. Owned by the I/O thread.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "fiber/async_result.hpp"

namespace fiber::master {

/// A chunk of calls of one function, sent to a worker as one message.
struct Task {
  std::string function;
  std::vector<std::string> calls;  // encoded argument tuples
  std::shared_ptr<detail::Batch> batch;
  std::size_t first = 0;  // slot of calls[0] in batch
  int losses = 0;         // times its worker died holding it
  std::string worker;     // lease holder; empty while pending
};

class TaskTable {
 public:
  std::uint64_t Add(Task task);
  bool HasPending() const { return !pending_.empty(); }
  /// Leases the oldest pending task to worker and returns its id.
  std::uint64_t LeaseNext(const std::string& worker);
  Task* Find(std::uint64_t id);
  /// Back to the front of the queue, e.g. after its worker died.
  void Requeue(std::uint64_t id);
  /// Delivers outcomes to the waiting caller and forgets the task.
  void Finish(std::uint64_t id, std::vector<detail::Outcome>&& outcomes);
  /// Finishes the task with the same failure for every call.
  void Fail(std::uint64_t id, detail::Outcome::Kind kind, const std::string& message);
  void FailAll(detail::Outcome::Kind kind, const std::string& message);
  std::size_t size() const { return tasks_.size(); }

 private:
  std::unordered_map<std::uint64_t, Task> tasks_;
  std::deque<std::uint64_t> pending_;
  std::uint64_t next_id_ = 1;
};

}  // namespace fiber::master
