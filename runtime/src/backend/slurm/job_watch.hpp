// The run's worker jobs as Slurm lists them, refreshed by one squeue for the
// whole run every second on a thread of its own, by the run's one Slurm
// backend (which every pool of the run shares), so a busy controller is
// asked once per second per run, not once per worker. Thread-safe.
#pragma once

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <string>
#include <thread>

#include "backend/slurm/job_state.hpp"

namespace fiber::backend {

class JobWatch {
 public:
  using Clock = std::chrono::steady_clock;
  struct Listing {
    /// When the squeue of these jobs started; {}: none has answered yet.
    Clock::time_point taken{};
    /// By job ("12_3"): the backend trusts the jobs it submitted, not
    /// whatever job claims a worker's id in its comment.
    std::map<std::string, JobState> jobs;
    std::string error;                     // why the last squeue failed; "" when it worked
  };

  /// Starts watching run_id's jobs.
  explicit JobWatch(std::string run_id);
  ~JobWatch();
  JobWatch(const JobWatch&) = delete;
  JobWatch& operator=(const JobWatch&) = delete;

  /// The latest listing (and the latest error).
  Listing Latest() const;
  /// Waits until a listing taken after `after` is there, at most `limit`;
  /// false when none came in time.
  [[nodiscard]] bool WaitNewer(Clock::time_point after, Clock::duration limit, Listing* out);

 private:
  void Loop();

  const std::string run_id_;
  mutable std::mutex mu_;
  std::condition_variable changed_;
  Listing latest_;     // guarded by mu_
  bool stop_ = false;  // guarded by mu_
  std::thread thread_;
};

}  // namespace fiber::backend
