// A Slurm run's records (RunRecords): its worker jobs as squeue lists
// them by the run's name and comment, with why they wait, one squeue per
// Slurm cluster however many runs fiber ps shows; their cancellation and
// the keys no worker read (run_jobs.hpp). A worker's log is its job's
// output file, to which the run's directory links: no engine log. The
// master's job is slurm_master_placement.hpp's. Thread-safe (no state).
#pragma once

#include "backend/run_records.hpp"

namespace fiber::backend {

class SlurmRunRecords : public RunRecords {
 public:
  const RecordWords& words() const override;
  std::vector<const char*> variables() const override;
  RunsWorkers List(const std::vector<RunPlace>& runs) const override;
  [[nodiscard]] bool Leftovers(const RunPlace& run, std::vector<std::string>* out, std::string* err) const override;
  [[nodiscard]] bool Remove(const RunPlace& run, int* removed, std::string* err) const override;
};

/// What the run's Slurm commands get on top of this process's environment
/// (RunSlurm's env): the Slurm variables it recorded.
std::vector<std::string> SlurmEnvOf(const RunPlace& run);

/// Which Slurm cluster the run used, for errors: "the Slurm cluster of
/// SLURM_CONF=/etc/slurm.conf", or "this machine's Slurm cluster".
std::string SlurmClusterOf(const RunPlace& run);

}  // namespace fiber::backend
