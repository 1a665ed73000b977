// A run's containers as the engine records them (by label), and their end:
// a container's log is copied into the run's worker log file before the
// container is removed, so `fiber logs --worker` reads it after the
// container is gone. Used by the container backend for its own workers and
// by fiber run, stop, ps and logs for a whole run.
#pragma once

#include <string>
#include <vector>

#include "engine/engine_client.hpp"

namespace fiber::backend {

struct RunContainer {
  std::string id;
  std::string worker_id;
  std::string state;  // the engine's: created, running, exited, dead...
};

/// The containers labelled with run_id, running or not.
[[nodiscard]] bool ListRunContainers(const engine::Client& engine, const std::string& run_id,
                                     std::vector<RunContainer>* out, std::string* err);

/// Appends the container's whole output to log_file (when not empty), then
/// removes the container, running or not.
[[nodiscard]] bool SaveLogAndRemove(const engine::Client& engine, const std::string& id,
                                    const std::string& log_file, std::string* err);

/// SaveLogAndRemove for every container of run_id, each log to its worker's
/// file in run_dir (none when run_dir is empty); the number removed in
/// *removed.
[[nodiscard]] bool RemoveRunContainers(const engine::Client& engine, const std::string& run_id,
                                       const std::string& run_dir, int* removed, std::string* err);

}  // namespace fiber::backend
