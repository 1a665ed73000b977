// A run's worker jobs as Slurm records them: submitted with sbatch as job
// arrays (named and commented with the run, job_state.hpp), listed with one
// squeue for the whole run, cancelled with scancel. Used by the Slurm
// backend for its own jobs and by SlurmRunRecords (fiber run, ps and stop)
// for a whole run, also after its master crashed: Slurm's records, not
// fiber's memory, say what a run has. Thread-safe (each call runs its own
// command).
#pragma once

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "backend/slurm/job_state.hpp"
#include "backend/slurm/slurm_command.hpp"
#include "config/settings.hpp"
#include "fiber/resources.hpp"

namespace fiber::backend {

/// One sbatch: workers w(first + i x stride) for each index i, as one job
/// array (stride: the workers each job holds, workers_per_job, so that the
/// indexes stay dense: Slurm caps them at MaxArraySize, and squeue leaves
/// out a sparse array's last pending task).
struct WorkerArray {
  std::string run_id;
  long first = 0;
  long stride = 1;
  std::vector<long> indexes;
  /// The worker's program and its arguments, at the same path on the nodes.
  std::vector<std::string> command;
  /// The workers' variables (worker/bootstrap.hpp) but the worker id and
  /// key file, which the script sets for each worker: never the key.
  std::map<std::string, std::string> env;
  /// Where each worker's key waits for it, as KEY_DIR/wN.key.
  std::string key_dir;
  /// Where each job's output goes (sbatch --output: %A, %a).
  std::string output;
  Resources resources;

  /// The number of the (first) worker of the array's job index.
  long NumberAt(long index) const { return first + index * stride; }
  /// Makes the array's jobs those of these workers' numbers (each a
  /// multiple of stride from the lowest): first the lowest, indexes dense.
  void SetNumbers(std::vector<long> numbers);
};

/// text in single quotes, for sh.
std::string ShellQuoted(const std::string& text);
/// The line of a batch script that exports name=value, the value quoted;
/// "" when name is not a variable name (config::IsVariableName), which the
/// script would otherwise run as shell code.
std::string ShellExport(const std::string& name, const std::string& value);

/// The file worker_id's key waits in.
std::string KeyFile(const std::string& key_dir, const std::string& worker_id);
/// The job output file of array job_id's task index, as --output names it
/// (output_dir/%A_%a.out).
std::string JobOutputFile(const std::string& output_dir, const std::string& job_id, long index);
std::string JobOutputPattern(const std::string& output_dir);

/// The batch script of an array (sh, which may be dash): sets the worker's
/// variables and runs its program.
std::string WorkerScript(const WorkerArray& array);
/// sbatch's options from the settings, for every job of a run: the user's
/// sbatch_options first, then partition, account, QOS and time limit.
std::vector<std::string> SchedulingArguments(const config::Settings& settings);
/// sbatch's arguments for an array (the script on its stdin): "sbatch
/// --parsable", SchedulingArguments, the array limit, the resources as
/// --cpus-per-task, --mem and --gres=gpu:N.
std::vector<std::string> SbatchArguments(const config::Settings& settings, const WorkerArray& array);
/// "0-3,5,7-8", for --array.
std::string ArrayIndexes(const std::vector<long>& indexes);

/// Submits the array; its job id in *job_id. False with *err saying why
/// sbatch refused it.
[[nodiscard]] bool SubmitWorkers(const config::Settings& settings, const WorkerArray& array,
                                 std::string* job_id, std::string* err);

/// The run's jobs as squeue lists them (ended ones too, while Slurm keeps
/// them: MinJobAge), one per array task: the user's own jobs only. env as
/// RunSlurm takes it, here and below.
[[nodiscard]] bool ListRunJobs(const std::string& run_id, std::vector<JobState>* out, std::string* err,
                               const std::vector<std::string>& env = {},
                               std::chrono::milliseconds retry_timeout = kSlurmRetryTimeout);
/// squeue's arguments for the user's own jobs (--me; ended ones too), all
/// of them or (names not empty) those named so, ParseSqueue's fields.
std::vector<std::string> SqueueArguments(const std::vector<std::string>& names = {});
/// The jobs of text (SqueueArguments' output) that are of these runs, by
/// run id: by the run their comment names, as a name alone could be
/// another run's.
std::map<std::string, std::vector<JobState>> JobsOfRuns(const std::string& text,
                                                        const std::vector<std::string>& run_ids);
/// The jobs of several runs, by run id, from one squeue: so fiber ps asks
/// the controller once however many Slurm runs it shows.
[[nodiscard]] bool ListRunsJobs(const std::vector<std::string>& run_ids,
                                std::map<std::string, std::vector<JobState>>* out, std::string* err,
                                const std::vector<std::string>& env = {},
                                std::chrono::milliseconds retry_timeout = kSlurmRetryTimeout);

/// scancel of these jobs ("12", "12_3"); with term, SIGTERM to their
/// programs instead (scancel --signal=TERM --full). Tried again on
/// transient errors (RunSlurm): not for the master's I/O thread
/// (JobCanceller).
[[nodiscard]] bool CancelJobs(const std::vector<std::string>& jobs, std::string* err,
                              const std::vector<std::string>& env = {}, bool term = false);

/// The keys in key_dir that no worker read (none when empty): a master
/// that died leaves them.
std::vector<std::string> UnreadKeyFiles(const std::string& key_dir);

/// Cancels every job of the run that has not ended; *cancelled counts them.
/// Then deletes its UnreadKeyFiles.
[[nodiscard]] bool CancelRun(const std::string& run_id, const std::string& key_dir, int* cancelled,
                             std::string* err, const std::vector<std::string>& env = {});

}  // namespace fiber::backend
