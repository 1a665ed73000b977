#include "backend/slurm/job_watch.hpp"

#include <algorithm>
#include <vector>

#include "backend/slurm/run_jobs.hpp"

namespace fiber::backend {

namespace {

// Whether two listings say the same of every job: nothing new.
bool Same(const std::map<std::string, JobState>& a, const std::map<std::string, JobState>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const auto& x, const auto& y) {
    return x.first == y.first && x.second.state == y.second.state && x.second.reason == y.second.reason;
  });
}

}  // namespace

std::unique_ptr<JobWatch> WatchRunJobs(const std::string& run_id) {
  const auto poll = [run_id](JobWatch& watch, std::string* err) {
    const JobWatch::Clock::time_point taken = JobWatch::Clock::now();
    std::vector<JobState> jobs;
    // Not tried again here: the watch's next step is.
    if (!ListRunJobs(run_id, &jobs, err, {}, {})) return false;
    std::map<std::string, JobState> by_job;
    for (JobState& j : jobs)
      if (!j.worker_id.empty()) by_job[j.job] = std::move(j);
    bool same = false;
    watch.Heard([&](JobListing& listing) {
      same = Same(listing.jobs, by_job);
      listing.jobs = std::move(by_job);
      listing.taken = taken;
    });
    if (same) watch.Unchanged();
    return true;
  };
  const WatchPace pace{kSqueueFloor, kSqueueFloor, kSqueueCeiling};
  return std::make_unique<JobWatch>(poll, pace, "an internal error watching the run's jobs");
}

}  // namespace fiber::backend
