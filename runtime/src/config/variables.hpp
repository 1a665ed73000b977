// The FIBER_* environment variables that are not settings (the settings'
// own are in setting_table.cpp): what fiber run hands the program it starts
// about its run, what a backend hands a worker (worker/bootstrap.hpp fills
// them from a Bootstrap) and what marks a local fork server. Plain data
// here, the one place they are spelled, so that config knows every variable
// of fiber's without reaching up to the code that sets them. Constants only.
#pragma once

namespace fiber::config {

/// What fiber run hands the program it starts: the run's id (which its
/// workers carry too) and directory (runs/run_dir.hpp).
inline constexpr const char* kRunIdVariable = "FIBER_RUN_ID";
inline constexpr const char* kRunDirVariable = "FIBER_RUN_DIR";
/// What fiber run hands a master it starts in a pod (master: cluster): the
/// file holding the workers' key, which fiber run put in the run's Secret.
inline constexpr const char* kRunKeyFileVariable = "FIBER_RUN_KEY_FILE";

/// "worker" in a worker's environment: fiber::init serves as that worker.
inline constexpr const char* kRoleVariable = "FIBER_ROLE";
/// The master's endpoint a worker connects to: tcp://host:port.
inline constexpr const char* kMasterEndpointVariable = "FIBER_MASTER_ENDPOINT";
/// The variable naming the worker; a backend that starts many workers with
/// one command (Slurm's job arrays) has each set its own.
inline constexpr const char* kWorkerIdVariable = "FIBER_WORKER_ID";
/// The variable holding the run's secret, which a worker scrubs once read.
inline constexpr const char* kSecretVariable = "FIBER_CLIENT_KEY";
/// Names a file holding the secret, in place of kSecretVariable: a backend
/// whose environment others can read (a container's, which the engine's
/// inspect shows) puts the secret in a file only the worker reads. The
/// worker removes the file once read, where it may.
inline constexpr const char* kSecretFileVariable = "FIBER_CLIENT_KEY_FILE";
/// The process a local worker watches, and ends with.
inline constexpr const char* kParentPidVariable = "FIBER_PARENT_PID";

/// How many workers the job a worker's program starts in holds, when more
/// than one: the program forks them, w(N) to w(N+count-1) for the worker id
/// it was given, wN (worker/job_supervisor.hpp).
inline constexpr const char* kJobWorkersVariable = "FIBER_JOB_WORKERS";

/// A host name or address a manager gives its callers for its own
/// endpoint in place of its address toward the master, where that is not
/// how they reach it (a NAT); it still listens on that address
/// (worker/direct_calls.hpp). Optional, read by a worker; a backend never sets it.
inline constexpr const char* kManagerHostVariable = "FIBER_MANAGER_HOST";

/// Set in a local fork server's environment: the descriptor of its end.
inline constexpr const char* kForkServerFdVariable = "FIBER_FORK_SERVER_FD";

/// Every one of the above.
inline constexpr const char* kNonSettingVariables[] = {
    kRunIdVariable,   kRunDirVariable,     kRunKeyFileVariable, kRoleVariable,
    kMasterEndpointVariable, kWorkerIdVariable, kSecretVariable, kSecretFileVariable,
    kParentPidVariable, kJobWorkersVariable, kManagerHostVariable, kForkServerFdVariable};

}  // namespace fiber::config
