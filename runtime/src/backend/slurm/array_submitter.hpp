// Submits a run's worker arrays with sbatch on a thread of its own, one at
// a time in the order given, at most one a second (those queued meanwhile
// joined into one), so that the master's I/O thread never waits on a busy
// controller. RunSlurm tries transient failures again (for
// kSlurmRetryTimeout); an array refused for a limit on queued
// jobs (SubmitLimitError: MaxSubmitJobs, MaxJobCount) is halved until a
// single job is refused, which then waits in fiber, tried again after 2 s,
// doubling up to 30 s, until Slurm makes room; any other refusal is the
// array's answer. Used by the Slurm backend. Thread-safe.
#pragma once

#include <chrono>
#include <deque>
#include <string>
#include <vector>

#include "backend/slurm/run_jobs.hpp"
#include "config/settings.hpp"
#include "os/loop_thread.hpp"

namespace fiber::backend {

class ArraySubmitter {
 public:
  /// An array sbatch took (job_id) or refused for good (error).
  struct Done {
    WorkerArray array;
    std::string job_id;
    std::string error;
  };

  /// Arrays added while another is being submitted go together into one
  /// sbatch where they can: the same job but for its workers, all within
  /// max_array_size (ControllerLimits).
  ArraySubmitter(config::Settings settings, long max_array_size);
  ~ArraySubmitter() { Stop(); }
  ArraySubmitter(const ArraySubmitter&) = delete;
  ArraySubmitter& operator=(const ArraySubmitter&) = delete;

  void Add(WorkerArray array);
  /// Takes worker number n out of the arrays not yet submitted; false when
  /// none holds it (submitted, or being submitted).
  bool Withdraw(long n);
  /// The arrays done since the last call.
  std::vector<Done> Take();
  /// Waits for an sbatch under way (its answer stays for Take); submits
  /// nothing more.
  void Stop();
  /// Why the arrays not yet submitted wait (sbatch's refusal), "" when they
  /// do not wait for room.
  std::string waiting() const;

 private:
  void Loop();

  const config::Settings settings_;
  const long max_array_size_;
  bool busy_ = false;              // guarded by loop_.mu(): an sbatch is under way
  bool limited_ = false;           // guarded by loop_.mu(): a limit refused an array the queue still holds
  std::chrono::steady_clock::time_point last_{};  // guarded by loop_.mu(): the last sbatch's end
  std::deque<WorkerArray> queue_;  // guarded by loop_.mu(); not the one being submitted
  std::vector<Done> done_;         // guarded by loop_.mu()
  std::string waiting_;            // guarded by loop_.mu()
  os::LoopThread loop_;
};

}  // namespace fiber::backend
