#include "backend/slurm/job_canceller.hpp"

#include <utility>

#include "backend/slurm/run_jobs.hpp"
#include "diagnostics/log.hpp"
#include "os/mutex.hpp"

namespace fiber::backend {

JobCanceller::JobCanceller() {
  loop_.Start([this] { Loop(); }, [](const std::string& what) {
    log::Warning("the thread cancelling the run's Slurm jobs ended: " + what);
  });
}

JobCanceller::~JobCanceller() { loop_.Stop(); }

void JobCanceller::Cancel(std::vector<std::string> jobs) {
  if (jobs.empty()) return;
  {
    os::MutexLock lock(loop_.mu());
    for (std::string& job : jobs) jobs_.push_back(std::move(job));
  }
  loop_.Notify();
}

void JobCanceller::Loop() {
  os::MutexLock lock(loop_.mu());
  for (;;) {
    loop_.Wait(lock, [this]() FIBER_REQUIRES(loop_.mu()) { return !jobs_.empty(); });
    if (loop_.stopping()) return;
    const std::vector<std::string> jobs = std::exchange(jobs_, {});
    lock.Unlock();
    std::string err;
    if (!CancelJobs(jobs, &err))
      log::Warning("cannot cancel Slurm job" + std::string(jobs.size() > 1 ? "s " : " ") + jobs.front() +
                   (jobs.size() > 1 ? " and " + std::to_string(jobs.size() - 1) + " more" : "") + ": " + err);
    lock.Lock();
  }
}

}  // namespace fiber::backend
