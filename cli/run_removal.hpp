// Removing a run: its workers as its engine records them (containers, pods
// or Slurm jobs, their output kept in the run's directory first), for fiber
// run once its master ended and for fiber stop; and an ended run's records,
// for fiber rm and fiber prune: a running run is refused (so is one whose
// master in the cluster cannot be asked), and a run whose master or
// launcher died first loses the workers it left (its record is what finds
// them).
#pragma once

#include <string>

#include "run_store.hpp"

namespace fiber::cli {

/// Removes the run's workers, found by its engine's records, their output
/// saved to the run's worker logs first (backend::RunRecords::Remove).
/// True when there was nothing to remove or all of it went; *removed says
/// how many of what ("2 containers", "" for none).
[[nodiscard]] bool RemoveRunWorkers(const RunRecord& run, std::string* removed, std::string* err);

/// Removes run's directory once it has ended; *bytes is the space freed.
/// False with *err when it runs or may, or what it left cannot be removed.
[[nodiscard]] bool RemoveEndedRun(RunStore& store, const RunRecord& run, unsigned long long* bytes,
                                  std::string* err);

}  // namespace fiber::cli
