// Where a pool's messages to its workers go: the dispatcher's socket in a
// run, a recording in tests.
#pragma once

#include <string>
#include <zmq.hpp>

namespace fiber::master {

class Outbox {
 public:
  virtual ~Outbox() = default;
  /// False when the worker cannot be reached (its connection is gone).
  [[nodiscard]] virtual bool Send(const std::string& worker_id, zmq::message_t message) = 0;
};

}  // namespace fiber::master
