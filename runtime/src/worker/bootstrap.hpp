// The contract between a backend and the worker it starts: the few settings
// a worker needs, handed over as FIBER_* environment variables. This file is
// the only place that spells them: the master fills a Bootstrap, a backend
// turns it into an environment with ToEnvironment, and fiber::init in the
// worker reads it back with ReadBootstrap. PROTOCOL.md lists the variables.
#pragma once

#include <chrono>
#include <map>
#include <string>

#include "config/settings.hpp"

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
  /// The user's variables every worker gets on every backend
  /// (config::WorkerEnvironment); the FIBER_* ones above win over them.
  std::map<std::string, std::string> env;
};

/// The variable naming the worker; a backend that starts many workers with
/// one command (Slurm's job arrays) has each set its own.
inline constexpr const char* kWorkerIdVariable = "FIBER_WORKER_ID";

/// The variable holding the secret, which a worker scrubs once read.
inline constexpr const char* kSecretVariable = "FIBER_CLIENT_KEY";

/// Names a file holding the secret, in place of kSecretVariable: a backend
/// whose environment others can read (a container's, which the engine's
/// inspect shows) puts the secret in a file only the worker reads. The
/// worker removes the file once read, where it may.
inline constexpr const char* kSecretFileVariable = "FIBER_CLIENT_KEY_FILE";

/// The variables that make fiber::init serve as this worker.
std::map<std::string, std::string> ToEnvironment(const Bootstrap& bootstrap);
/// The same without the secret: kSecretFileVariable names secret_file,
/// which the backend fills with bootstrap.client_secret.
std::map<std::string, std::string> ToEnvironmentWithSecretFile(const Bootstrap& bootstrap,
                                                               const std::string& secret_file);

/// True when the environment says this process is a worker.
bool IsWorkerProcess(const config::Getenv& getenv);

/// Reads and checks a worker's variables; false with *err naming the first
/// missing or malformed one (never showing the secret).
[[nodiscard]] bool ReadBootstrap(const config::Getenv& getenv, Bootstrap* out, std::string* err);

}  // namespace fiber::worker
