// Cancels a run's Slurm jobs with scancel on a thread of its own, so that
// the master's I/O thread (its connections, /metrics, fiber top) never
// waits for a busy controller: scancel may take seconds to answer, and is
// tried again on transient errors for kSlurmRetryTimeout. Jobs asked while
// one scancel runs go together into the next. Used by the Slurm backend for
// the workers it kills one by one; KillAll cancels the rest itself.
// Thread-safe.
#pragma once

#include <string>
#include <vector>

#include "os/loop_thread.hpp"
#include "os/mutex.hpp"

namespace fiber::backend {

class JobCanceller {
 public:
  JobCanceller();
  /// Waits for the scancel under way; the jobs still waiting are not
  /// cancelled.
  ~JobCanceller();
  JobCanceller(const JobCanceller&) = delete;
  JobCanceller& operator=(const JobCanceller&) = delete;

  /// Job ids as scancel takes them ("12_3").
  void Cancel(std::vector<std::string> jobs);

 private:
  void Loop();

  std::vector<std::string> jobs_ FIBER_GUARDED_BY(loop_.mu());  // not yet given to scancel
  os::LoopThread loop_;
};

}  // namespace fiber::backend
