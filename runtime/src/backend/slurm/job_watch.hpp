// The run's worker jobs as Slurm lists them, refreshed by one squeue for the
// whole run (an EngineWatch), by the run's one Slurm backend (which every
// pool of the run shares), so a busy controller is asked once per run, not
// once per worker: every kSqueueFloor while jobs change, the wait doubling
// up to kSqueueCeiling while none does (a worker's liveness comes from its
// connection; squeue says why jobs wait and how they ended), back to the
// floor when the backend submits more (JobWatch::Hurry). Thread-safe.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "backend/engine_watch.hpp"
#include "backend/slurm/job_state.hpp"

namespace fiber::backend {

struct JobListing {
  /// When the squeue of these jobs started; {}: none has answered yet.
  WatchLoop::Clock::time_point taken{};
  /// By job ("12_3"): the backend trusts the jobs it submitted, not
  /// whatever job claims a worker's id in its comment.
  std::map<std::string, JobState> jobs;
};

using JobWatch = EngineWatch<JobListing>;

/// The squeue pace of a run's watch, documented in fiber-config(5).
inline constexpr std::chrono::seconds kSqueueFloor{1};
inline constexpr std::chrono::seconds kSqueueCeiling{10};

/// Starts watching run_id's jobs; the watch's error is why the last squeue
/// failed.
std::unique_ptr<JobWatch> WatchRunJobs(const std::string& run_id);

}  // namespace fiber::backend
