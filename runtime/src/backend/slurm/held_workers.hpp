// The workers of a run that wait in fiber to be submitted, Slurm refusing
// more jobs for now (MaxSubmitJobs, MaxJobCount), and why: Slurm has no
// record of them, so the run's Slurm backend writes them to a file of the
// run's Slurm directory, which fiber ps reads (SlurmRunRecords) beside
// squeue's jobs. The file goes when none waits, with the run (fiber stop,
// prune). Plain file functions.
#pragma once

#include <string>
#include <vector>

namespace fiber::backend {

struct HeldWorkers {
  std::string why;                      // sbatch's refusal
  std::vector<std::string> worker_ids;  // "w41"
};

/// The file in slurm_dir (runs::SlurmDir).
std::string HeldWorkersFile(const std::string& slurm_dir);
/// Replaces the file at once (written aside, renamed); none held removes it.
void WriteHeldWorkers(const std::string& slurm_dir, const HeldWorkers& held);
/// What the file says; none held when there is none.
HeldWorkers ReadHeldWorkers(const std::string& slurm_dir);

}  // namespace fiber::backend
