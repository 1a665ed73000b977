// Asks running masters for their status and workers over their runs' control
// sockets (the protocol: runtime/src/runs/control_protocol.hpp; the master's
// end: master/control.hpp). Not thread-safe.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <zmq.hpp>

namespace fiber::cli {

class ControlClient {
 public:
  ControlClient() : context_(1) {}
  /// The master's answer to request (runs::kControlStatus: its numbers;
  /// runs::kControlDetail: those and each worker's state and task) as JSON;
  /// false with *err when it does not answer within a second (not running,
  /// or busy).
  [[nodiscard]] bool Query(const std::string& run_dir, const std::string& request,
                           nlohmann::json* status, std::string* err);

 private:
  zmq::context_t context_;
};

}  // namespace fiber::cli
