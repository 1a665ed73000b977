#include "backend/slurm/job_watch.hpp"

#include <vector>

#include "backend/slurm/run_jobs.hpp"
#include "os/background_thread.hpp"

namespace fiber::backend {

namespace {

// Between two squeues of a run.
constexpr auto kInterval = std::chrono::seconds(1);

}  // namespace

JobWatch::JobWatch(std::string run_id) : run_id_(std::move(run_id)) {
  thread_ = StartBackgroundThread([this] { Loop(); }, [this](const std::string& what) {
    std::lock_guard<std::mutex> lock(mu_);
    latest_.error = "an internal error watching the run's jobs (" + what + ")";
    changed_.notify_all();
  });
}

JobWatch::~JobWatch() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

JobWatch::Listing JobWatch::Latest() const {
  std::lock_guard<std::mutex> lock(mu_);
  return latest_;
}

bool JobWatch::WaitNewer(Clock::time_point after, Clock::duration limit, Listing* out) {
  std::unique_lock<std::mutex> lock(mu_);
  const bool newer = changed_.wait_for(lock, limit, [&] { return latest_.taken > after; });
  *out = latest_;
  return newer;
}

void JobWatch::Loop() {
  for (;;) {
    const Clock::time_point taken = Clock::now();
    std::vector<JobState> jobs;
    std::string err;
    const bool ok = ListRunJobs(run_id_, &jobs, &err);
    std::unique_lock<std::mutex> lock(mu_);
    if (ok) {
      latest_.jobs.clear();
      for (JobState& j : jobs)
        if (!j.worker_id.empty()) latest_.jobs[j.job] = std::move(j);
      latest_.taken = taken;
    }
    latest_.error = err;
    changed_.notify_all();
    if (changed_.wait_for(lock, kInterval, [this] { return stop_; })) return;
  }
}

}  // namespace fiber::backend
