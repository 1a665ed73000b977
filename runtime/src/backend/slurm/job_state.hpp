// What Slurm's machine-readable answers mean to fiber: a worker job as
// squeue lists it (the fields asked for by kSqueueFields, '|'-separated),
// sbatch --parsable's job id, and a state and reason in the words the other
// backends use (running, waiting because ..., ended and how, never able to
// run). Plain functions of text; read by the Slurm backend and fiber ps.
#pragma once

#include <string>
#include <vector>

#include "backend/end_cause.hpp"
#include "os/exit_status.hpp"

namespace fiber::backend {

/// The end words only Slurm jobs have, beside the shared ones (backend/end_cause.hpp).
namespace job_end_word {
inline constexpr const char* kTimeLimit = "time_limit";  // its job's time limit or deadline
}  // namespace job_end_word

/// squeue's --Format for ParseSqueue: each field followed by '|', so that no
/// value is padded or cut.
inline constexpr const char* kSqueueFields =
    "JobArrayID:|,ArrayJobID:|,ArrayTaskID:|,State:|,Reason:|,exit_code:|,NodeList:|,Comment:|";

/// How a worker job's comment names its run and the number of the worker
/// its array index 0 stands for: "fiber.run=ID fiber.first=3" (index i is
/// worker w(3+i)); the job's name is JobName(run id), for squeue --name.
std::string JobComment(const std::string& run_id, long first_worker, long stride = 1);
/// The comment of the job that runs the program itself as the run's master
/// (master: cluster): "fiber.run=ID fiber.role=master"; it stands for no
/// worker.
std::string MasterJobComment(const std::string& run_id);
std::string JobName(const std::string& run_id);

struct JobState {
  std::string job;        // what scancel takes: "12_3"
  std::string run_id;     // from the comment; "" when none
  std::string worker_id;  // "w5", from the comment and the array index; "" when no worker's
  bool master = false;    // the run's master (MasterJobComment)
  std::string state;      // PENDING, RUNNING, COMPLETED, FAILED, CANCELLED, TIMEOUT, ...
  std::string reason;     // Slurm's reason code: Resources, Priority, PartitionConfig, None
  std::string node;       // the node it runs on (a worker's job has one); "" until it runs
  /// Why it does not run yet, for the user ("Resources: the nodes lack the
  /// CPUs, memory or GPUs it asks for right now"); empty when nothing holds
  /// it up.
  std::string waiting;
  /// Slurm will never run it as asked (the reason says so, e.g.
  /// PartitionConfig): how, for the error.
  bool hopeless = false;
  /// It ended (or will never start): why.
  bool ended = false;
  EndCause end;
  ExitStatus status = {};
  /// Slurm ended it, not its program: a time limit, a preemption, a
  /// cancellation, a failed node.
  bool ended_by_slurm = false;
};

/// The jobs of squeue --noheader --array --Format=kSqueueFields output;
/// lines that do not have the fields are skipped.
std::vector<JobState> ParseSqueue(const std::string& text);

/// The job id in sbatch --parsable output ("12" or "12;cluster"); false when
/// there is none.
[[nodiscard]] bool ParseSbatchJobId(const std::string& text, std::string* job_id);

/// Reason codes that say Slurm will never run the job as it was asked for.
bool HopelessReason(const std::string& reason);
/// Slurm's reason code with a few words on what it means, where fiber knows.
std::string ExplainReason(const std::string& reason);

}  // namespace fiber::backend
