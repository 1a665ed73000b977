// What a backend hands a worker: the FIBER_* environment variables that make
// fiber::init serve instead of return. Read once, checked whole.
#pragma once

#include <chrono>
#include <string>

#include "config/settings.hpp"

namespace fiber::worker {

struct Bootstrap {
  std::string master;  // tcp://host:port
  std::string worker_id;
  std::string server_public;  // Z85
  std::string client_public;
  std::string client_secret;
  /// The run's timing, as the master uses it.
  std::chrono::milliseconds heartbeat_interval{0};
  std::chrono::milliseconds heartbeat_timeout{0};
  long parent_pid = 0;  // set by the local backend only
};

/// True when FIBER_ROLE=worker.
bool IsWorkerProcess(const config::Getenv& getenv);

/// Reads and checks the worker's variables; false with *err naming the first
/// missing or malformed one.
bool ReadBootstrap(const config::Getenv& getenv, Bootstrap* out, std::string* err);

}  // namespace fiber::worker
