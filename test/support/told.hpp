// A stand-in for an asker of the master's tables (QueueTable, SyncTable,
// ShareTable): an Answer that records each status and body it is told, and
// can play a peer whose connection is gone (the answer cannot be sent); and
// the request it asks.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "master/queue_table.hpp"

/// A request of op about object.
inline fiber::wire::Request Ask(fiber::wire::Op op, std::uint64_t object = 0, std::string body = {}) {
  fiber::wire::Request r;
  r.op = op;
  r.object = object;
  r.body = std::move(body);
  return r;
}

struct Told {
  explicit Told(std::string who = "") : peer(std::move(who)) {}
  std::string peer;  // who asks: "" the master, else a worker
  std::vector<std::pair<fiber::wire::Status, std::string>> answers;
  bool reachable = true;
  fiber::master::QueueTable::Answer answer() {
    return [this](fiber::wire::Status s, std::string_view body) {
      if (!reachable) return false;
      answers.emplace_back(s, std::string(body));
      return true;
    };
  }
  /// The statuses told, in order.
  std::vector<fiber::wire::Status> statuses() const {
    std::vector<fiber::wire::Status> out;
    for (const auto& [s, body] : answers) out.push_back(s);
    return out;
  }
};
