// An Outbox that keeps what a pool sends, by worker, decoded enough for a
// test to read; a worker can be made unreachable. Not thread-safe: for tests
// that drive a PoolService directly.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "master/outbox.hpp"
#include "wire/message.hpp"
#include "wire/task_batch.hpp"

namespace fiber::testing {

class RecordingOutbox : public master::Outbox {
 public:
  bool Send(const std::string& worker_id, zmq::message_t message) override {
    if (unreachable.count(worker_id)) return false;
    sent[worker_id].push_back(std::move(message));
    return true;
  }
  /// The types sent to worker, in order.
  std::vector<wire::Type> Types(const std::string& worker) const;
  /// True when a message of type was sent to worker.
  bool Sent(const std::string& worker, wire::Type type) const;
  /// Ids of the tasks in every TASK sent to worker, in order.
  std::vector<std::uint64_t> TaskIds(const std::string& worker) const;
  /// The calls of every task sent to worker, in order.
  std::vector<wire::TaskView> Tasks(const std::string& worker) const;
  /// Ids of the tasks in every REVOKE sent to worker, in order.
  std::vector<std::uint64_t> Revoked(const std::string& worker) const;

  std::map<std::string, std::vector<zmq::message_t>> sent;
  std::set<std::string> unreachable;
};

}  // namespace fiber::testing
