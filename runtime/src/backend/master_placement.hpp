// Where an engine runs the program itself as the run's master (master:
// cluster): a pod or a Slurm job. What the command asks of it once its
// launcher is gone: its state from the engine's records, and its stop.
// Found by PlacementOf (engine_adapter.hpp). Implementations keep no
// state: thread-safe.
#pragma once

#include <optional>
#include <string>

#include "backend/run_records.hpp"
#include "os/exit_status.hpp"

namespace fiber::backend {

class MasterPlacement {
 public:
  virtual ~MasterPlacement() = default;
  /// What the engine records of the run's master: *runs while it runs or
  /// waits to; once it ended, *exit when the engine says how. False with
  /// *err when the engine cannot say.
  [[nodiscard]] virtual bool State(const RunPlace& run, bool* runs, std::optional<ExitStatus>* exit,
                                   std::string* err) const = 0;
  /// Has the engine stop the master as its launcher would have: SIGTERM to
  /// the program (the engine kills it after the run's grace period), or
  /// with force, at once.
  [[nodiscard]] virtual bool Stop(const RunPlace& run, bool force, std::string* err) const = 0;
};

}  // namespace fiber::backend
