// The run's worker jobs as Slurm lists them (an EngineWatch), for the run's
// one Slurm backend (which every pool of the run shares), from the squeue
// of all the user's jobs that the user's masters on this machine share
// (shared_squeue.hpp), so a busy controller is asked once for all of them,
// not once per run or worker: every kSqueueFloor while the run's jobs
// change, the wait doubling up to kSqueueCeiling while none does (a
// worker's liveness comes from its connection; squeue says why jobs wait
// and how they ended), back to the floor when the backend submits more
// (JobWatch::Hurry). Each step takes a listing made since its last, which
// another master's squeue may have made. Thread-safe.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "backend/engine_watch.hpp"
#include "backend/slurm/job_state.hpp"
#include "backend/slurm/shared_squeue.hpp"

namespace fiber::backend {

struct JobListing {
  /// When the squeue of these jobs started; {}: none has answered yet.
  WatchLoop::Clock::time_point taken{};
  /// By job ("12_3"): the backend trusts the jobs it submitted, not
  /// whatever job claims a worker's id in its comment.
  std::map<std::string, JobState> jobs;
};

using JobWatch = EngineWatch<JobListing>;

/// The slowest squeue pace of a run's watch, documented in fiber-config(5)
/// (the fastest: kSqueueFloor).
inline constexpr std::chrono::seconds kSqueueCeiling{10};

/// Starts watching run_id's jobs, sharing squeue through share
/// (SqueueSharePath; "": a squeue of its own each step); the watch's error
/// is why the last squeue failed.
std::unique_ptr<JobWatch> WatchRunJobs(const std::string& run_id, const std::string& share);

}  // namespace fiber::backend
