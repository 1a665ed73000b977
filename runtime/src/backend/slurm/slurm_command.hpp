// Runs one of Slurm's own commands (sbatch, squeue, scancel) the way its
// users do, bounded in time, for the Slurm backend and fiber ps, logs and
// stop. Its errors name the command and what it said. Thread-safe.
#pragma once

#include <chrono>
#include <string>
#include <vector>

namespace fiber::backend {

/// How long a Slurm command may take before it is killed: a controller
/// that does not answer makes the commands retry for a long while.
inline constexpr std::chrono::seconds kSlurmCommandTimeout{30};

/// How long a command failing with a transient error (TransientSlurmError)
/// is tried again before its last error is the answer, the waits between
/// tries doubling from 1 s up to 8 s.
inline constexpr std::chrono::milliseconds kSlurmRetryTimeout{60000};

/// Whether what a Slurm command said is worth another try: the controller
/// did not answer in time or was busy ("Socket timed out", "Resource
/// temporarily unavailable", "Unable to contact slurm controller", fiber's
/// own timeout).
bool TransientSlurmError(const std::string& said);

/// Whether sbatch refused a job for a limit on how many jobs may be queued,
/// which ends as jobs end: a user's, association's or QOS's MaxSubmitJobs
/// ("QOSMaxSubmitJobPerUserLimit", "AssocMaxSubmitJobLimit", "Job violates
/// accounting/QOS policy"), or the controller's MaxJobCount ("Slurm
/// temporarily unable to accept job", "queue full").
bool SubmitLimitError(const std::string& said);

/// The variables that say which Slurm cluster the commands reach: what a
/// run records (backend/engine_adapter.hpp: EngineEnvironment), so that fiber stop, ps and prune reach
/// the run's own.
inline constexpr const char* kSlurmVariables[] = {"SLURM_CONF"};

/// Runs argv (argv[0] searched on PATH) with input on its stdin and env
/// ("NAME=value", of kSlurmVariables) on top of this process's environment;
/// its stdout in *out. False with *err, one line naming the command, when it
/// cannot be run (not installed), takes too long, or fails (its last line
/// of stderr). Transient errors are tried again for retry_timeout. sbatch
/// saying it will sleep and retry on its own (a full queue: MaxJobCount)
/// is stopped at once, its words the error (a SubmitLimitError).
[[nodiscard]] bool RunSlurm(const std::vector<std::string>& argv, const std::string& input,
                            std::string* out, std::string* err, const std::vector<std::string>& env = {},
                            std::chrono::milliseconds retry_timeout = kSlurmRetryTimeout);

/// False with *err, the same line RunSlurm gives, when one of the commands
/// the backend runs (sbatch, squeue, scancel) is not on PATH: fiber run
/// refuses the backend before the program starts.
[[nodiscard]] bool CheckSlurmCommands(std::string* err);

}  // namespace fiber::backend
