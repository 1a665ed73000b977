// master: cluster on the Slurm backend: the program itself is submitted as
// a Slurm job (named and commented with the run, so that ps and stop find
// it), which starts its workers' jobs from its node. Its launcher follows
// it with squeue: why it waits in the queue, how it ended; its output is
// Slurm's output file, the run's master log. A stop is a SIGTERM for the
// program (scancel --signal=TERM), a kill its cancellation. Thread-safe
// (no state); a SlurmMaster it starts is not.
#pragma once

#include "backend/master_placement.hpp"

namespace fiber::backend {

class SlurmMasterPlacement : public MasterPlacement {
 public:
  std::unique_ptr<RunningMaster> Start(const MasterLaunch& launch, std::string* err) const override;
  [[nodiscard]] bool State(const RunPlace& run, bool* runs, std::optional<ExitStatus>* exit,
                           std::string* err) const override;
  [[nodiscard]] bool Stop(const RunPlace& run, bool force, std::string* err) const override;
};

/// The master job's batch script: the variables fiber run sets for the
/// program (program_env), the master told to run where it is (master:
/// local) and, unless listen_host is set, to listen on its node's first
/// address (hostname -I), which its workers on other nodes reach; then the
/// program.
std::string MasterScript(const MasterLaunch& launch);

}  // namespace fiber::backend
