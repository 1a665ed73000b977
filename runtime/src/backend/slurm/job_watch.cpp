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

std::unique_ptr<JobWatch> WatchRunJobs(const std::string& run_id, const std::string& share) {
  // The watch's last step and the listing it took, on its thread only.
  struct Last {
    JobWatch::Clock::time_point step{}, taken{};
  };
  const auto poll = [run_id, share, last = Last{}](JobWatch& watch, std::string* err) mutable {
    const auto now = JobWatch::Clock::now();
    // A listing newer than the last one, made since the last step: as fresh
    // as a squeue of the watch's own pace. The first: one a floor old.
    const auto since = last.step == JobWatch::Clock::time_point{}
                           ? now - kSqueueFloor
                           : std::max(last.step, last.taken + std::chrono::nanoseconds(1));
    last.step = now;
    UserJobs user;
    if (!ListUserJobs(share, since, watch.stopping(), &user, err)) return false;
    last.taken = user.taken;
    if (!user.error.empty()) {
      *err = user.error;
      return false;
    }
    std::map<std::string, std::vector<JobState>> by_run = JobsOfRuns(user.text, {run_id});
    std::map<std::string, JobState> by_job;
    for (JobState& j : by_run[run_id])
      if (!j.worker_id.empty()) by_job[j.job] = std::move(j);
    bool same = false;
    watch.Heard([&](JobListing& listing) {
      same = Same(listing.jobs, by_job);
      listing.jobs = std::move(by_job);
      listing.taken = user.taken;
    });
    if (same) watch.Unchanged();
    return true;
  };
  const WatchPace pace{kSqueueFloor, kSqueueFloor, kSqueueCeiling};
  return std::make_unique<JobWatch>(poll, pace, "an internal error watching the run's jobs");
}

}  // namespace fiber::backend
