// Removing an ended run's records, for fiber rm and fiber prune: a running
// run is refused (so is one whose master in the cluster cannot be asked),
// and a run whose master or launcher died first loses the containers, pods
// or Slurm jobs it left (its record is what finds them).
#pragma once

#include <string>

#include "run_store.hpp"

namespace fiber::cli {

/// Removes run's directory once it has ended; *bytes is the space freed.
/// False with *err when it runs or may, or what it left cannot be removed.
[[nodiscard]] bool RemoveEndedRun(RunStore& store, const RunRecord& run, unsigned long long* bytes,
                                  std::string* err);

}  // namespace fiber::cli
