// Submits a run's worker arrays with sbatch on a request queue's thread
// (backend/request_queue.hpp), one at a time in the order given, at most
// one a second (those queued meanwhile joined into one), so that the
// master's I/O thread never waits on a busy controller. RunSlurm tries transient failures again (for
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

#include "backend/request_queue.hpp"
#include "backend/slurm/run_jobs.hpp"
#include "config/settings.hpp"
#include "os/mutex.hpp"

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
  // Posts the next submission, at its time, unless one is posted.
  void PostNext(RequestQueue::When when) FIBER_REQUIRES(mu_);
  // The next array in the queue, joined with those that may go with it,
  // submitted; posts the next.
  void SubmitNext();
  // Every array left fails with why rather than wait for ever.
  void FailAll(const std::string& why);

  const config::Settings settings_;
  const long max_array_size_;
  mutable os::Mutex mu_;
  bool posted_ FIBER_GUARDED_BY(mu_) = false;  // a submission is posted, not yet begun
  bool busy_ FIBER_GUARDED_BY(mu_) = false;  // an sbatch is under way
  bool limited_ FIBER_GUARDED_BY(mu_) = false;  // a limit refused an array the queue still holds
  std::chrono::seconds pause_ FIBER_GUARDED_BY(mu_);  // the next wait for room
  std::deque<WorkerArray> queue_ FIBER_GUARDED_BY(mu_);  // not the one being submitted
  std::vector<Done> done_ FIBER_GUARDED_BY(mu_);
  std::string waiting_ FIBER_GUARDED_BY(mu_);
  RequestQueue requests_;          // last: its thread goes before what it uses
};

}  // namespace fiber::backend
