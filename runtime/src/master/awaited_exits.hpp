// A pool's lost workers whose end its backend has not reported yet, each by
// when it was lost. The pool finishes only when none is awaited: a closed
// connection can show before the process is gone, and on_exit is to have
// its status. A backend that never reports an end holds the pool up for a
// while at most. The crew's; not thread-safe.
#pragma once

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "master/task_table.hpp"

namespace fiber::master {

class AwaitedExits {
 public:
  /// Each end awaited at most longest.
  explicit AwaitedExits(std::chrono::milliseconds longest) : longest_(longest) {}

  /// Worker id, lost at now, is awaited (again from now).
  void Await(const std::string& id, Clock::time_point now) { since_[id] = now; }
  /// The backend has seen worker id end.
  void Seen(const std::string& id) { since_.erase(id); }
  bool empty() const { return since_.empty(); }
  /// The workers awaited for longer than longest at now, no longer awaited.
  std::vector<std::string> GiveUp(Clock::time_point now);

 private:
  std::chrono::milliseconds longest_;
  std::map<std::string, Clock::time_point> since_;
};

}  // namespace fiber::master
