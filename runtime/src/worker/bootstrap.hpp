// The contract between a backend and the worker it starts: the few settings
// a worker needs, handed over as FIBER_* environment variables. This file is
// the only place that spells them: the master fills a Bootstrap, a backend
// turns it into an environment with ToEnvironment, and fiber::init in the
// worker reads it back with ReadBootstrap. config/variables.hpp spells the
// variables; PROTOCOL.md lists them.
#pragma once

#include <chrono>
#include <map>
#include <string>

#include "config/settings.hpp"
#include "config/variables.hpp"

namespace fiber::worker {

struct Bootstrap {
  std::string run_id;
  std::string master;  // tcp://host:port
  std::string worker_id;
  /// The run's secret, Z85: every CURVE key of the run derives from it
  /// (wire/credentials.hpp). Never logged or shown.
  std::string client_secret;
  /// The run's timing, as the master uses it.
  std::chrono::milliseconds heartbeat_interval{0};
  std::chrono::milliseconds heartbeat_timeout{0};
  /// How long the worker may take to reach the master at first.
  std::chrono::milliseconds start_timeout{0};
  long parent_pid = 0;  // 0: none; set by the local backend only
  /// How many workers the process started holds, w(N) on from worker_id
  /// wN (workers_per_job, worker/job_supervisor.hpp); 1: itself only.
  int job_workers = 1;
  /// As a manager, the host it gives callers for its own endpoint; empty:
  /// its address toward the master (config::kManagerHostVariable).
  std::string manager_host;
  /// The user's variables every worker gets on every backend
  /// (config::WorkerEnvironment); the FIBER_* ones above win over them.
  std::map<std::string, std::string> env;
};

/// The variables that make fiber::init serve as this worker.
std::map<std::string, std::string> ToEnvironment(const Bootstrap& bootstrap);
/// The same without the secret: config::kSecretFileVariable names secret_file,
/// which the backend fills with bootstrap.client_secret.
std::map<std::string, std::string> ToEnvironmentWithSecretFile(const Bootstrap& bootstrap,
                                                               const std::string& secret_file);

/// True when the environment says this process is a worker.
bool IsWorkerProcess(const config::Getenv& getenv);

/// Reads and checks a worker's variables; false with *err naming the first
/// missing or malformed one (never showing the secret).
[[nodiscard]] bool ReadBootstrap(const config::Getenv& getenv, Bootstrap* out, std::string* err);

}  // namespace fiber::worker
