// A run's containers as the engine records them (by label), and their
// removal by fiber run (once the master ended) and fiber stop: the output a
// container wrote after its master stopped copying it is appended to the
// run's worker log file first, so `fiber logs --worker` has it all after
// the container is gone. Used by ContainerRunRecords, through which fiber
// run, stop, ps and logs reach them.
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

/// Removes every container of run_id, running or not, first appending to
/// its worker's file in run_dir (none when run_dir is empty) what it wrote
/// beyond what the file holds; the number removed in *removed.
[[nodiscard]] bool RemoveRunContainers(const engine::Client& engine, const std::string& run_id,
                                       const std::string& run_dir, int* removed, std::string* err);

}  // namespace fiber::backend
