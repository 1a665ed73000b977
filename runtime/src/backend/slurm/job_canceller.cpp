#include "backend/slurm/job_canceller.hpp"

#include <utility>

#include "backend/slurm/run_jobs.hpp"
#include "diagnostics/log.hpp"
#include "os/background_thread.hpp"

namespace fiber::backend {

JobCanceller::JobCanceller() {
  thread_ = StartBackgroundThread([this] { Loop(); }, [](const std::string& what) {
    log::Warning("the thread cancelling the run's Slurm jobs ended: " + what);
  });
}

JobCanceller::~JobCanceller() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

void JobCanceller::Cancel(std::vector<std::string> jobs) {
  if (jobs.empty()) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (std::string& job : jobs) jobs_.push_back(std::move(job));
  }
  changed_.notify_all();
}

void JobCanceller::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    changed_.wait(lock, [this] { return stop_ || !jobs_.empty(); });
    if (stop_) return;
    const std::vector<std::string> jobs = std::exchange(jobs_, {});
    lock.unlock();
    std::string err;
    if (!CancelJobs(jobs, &err))
      log::Warning("cannot cancel Slurm job" + std::string(jobs.size() > 1 ? "s " : " ") + jobs.front() +
                   (jobs.size() > 1 ? " and " + std::to_string(jobs.size() - 1) + " more" : "") + ": " + err);
    lock.lock();
  }
}

}  // namespace fiber::backend
