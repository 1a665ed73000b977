#include "backend/slurm/job_watch.hpp"

#include <vector>

#include "backend/slurm/run_jobs.hpp"

namespace fiber::backend {

std::unique_ptr<JobWatch> WatchRunJobs(const std::string& run_id) {
  const auto poll = [run_id](JobWatch& watch, std::string* err) {
    const JobWatch::Clock::time_point taken = JobWatch::Clock::now();
    std::vector<JobState> jobs;
    if (!ListRunJobs(run_id, &jobs, err)) return false;
    watch.Heard([&](JobListing& listing) {
      listing.jobs.clear();
      for (JobState& j : jobs)
        if (!j.worker_id.empty()) listing.jobs[j.job] = std::move(j);
      listing.taken = taken;
    });
    return true;
  };
  // Between two squeues of a run, whether the last worked or not.
  const WatchPace pace{std::chrono::seconds(1), std::chrono::seconds(1)};
  return std::make_unique<JobWatch>(poll, pace, "an internal error watching the run's jobs");
}

}  // namespace fiber::backend
