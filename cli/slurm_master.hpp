// fiber run with master: cluster on the slurm backend: the program itself
// is submitted as a Slurm job (named and commented with the run, so that
// ps and stop find it), which starts its workers' jobs from its node.
// fiber run follows it: says why it waits in the queue, streams its output
// (Slurm's output file, the run's master log) to stdout and its workers'
// to stderr, turns the first Ctrl-C or SIGTERM into a SIGTERM for the
// program (scancel --signal=TERM) and the grace period's end or a second
// one into its cancellation, and returns the program's exit status as if
// it had run here.
#pragma once

#include <string>

#include "cluster_master.hpp"

namespace fiber::cli {

/// The master job's batch script: the variables fiber run sets for the
/// program (program_env), the master told to run where it is (master:
/// local) and, unless listen_host is set, to listen on its node's first
/// address (hostname -I), which its workers on other nodes reach; then the
/// program.
std::string MasterScript(const ClusterMasterOptions& options);

/// Submits the master's job and follows it to its end; returns the
/// program's exit status (128+N when killed by signal N), or kFiberError
/// with *err when it could not be submitted or Slurm will never run it.
/// The run's jobs left are for the caller to cancel (RemoveRunWorkers).
int SuperviseSlurmMaster(const ClusterMasterOptions& options, std::string* err);

}  // namespace fiber::cli
