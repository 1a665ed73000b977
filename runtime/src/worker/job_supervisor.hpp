// The program started in a pod, Slurm job or container that holds several
// workers (workers_per_job): fiber::init forks them here, each then serving
// as a worker of its own (its own id, its own connection to the master),
// and waits for them; the job ends when its last worker ends. A SIGTERM,
// SIGINT or SIGHUP to it (a pod deleted, scancel, docker stop) goes on to
// every worker, and its workers die with it (PR_SET_PDEATHSIG), so the
// engine ending the job ends them all. Single-threaded: it runs in
// fiber::init before anything else.
#pragma once

#include "worker/bootstrap.hpp"

namespace fiber::worker {

/// Forks bootstrap->job_workers workers, w(N) to w(N+count-1) for a
/// worker_id wN, and returns in each with *bootstrap naming it (worker_id,
/// job_workers 1). The supervisor never returns: it waits for them all and
/// exits, 0 when every one exited 0, else as the last that did not (128 +
/// N for signal N).
void SuperviseJobWorkers(Bootstrap* bootstrap);

}  // namespace fiber::worker
