#include "backend/job_packing.hpp"

#include <unistd.h>

#include <csignal>
#include <functional>

#include "worker/worker_id.hpp"

namespace fiber::backend {

std::vector<std::vector<Launch>> PackIntoJobs(const std::vector<Launch>& launches, int per_job) {
  std::vector<std::vector<Launch>> jobs;
  long last = 0;
  for (const Launch& launch : launches) {
    long n = 0;
    const bool numbered = worker::WorkerNumber(launch.bootstrap.worker_id, &n);
    if (jobs.empty() || !numbered || n != last + 1 || static_cast<int>(jobs.back().size()) >= per_job)
      jobs.emplace_back();
    jobs.back().push_back(launch);
    // An id not of the form wN is a job of its own.
    last = numbered ? n : -2;
  }
  return jobs;
}

Resources TimesWorkers(const Resources& r, int count) {
  return {r.cpu * count, r.memory_mb * count, r.gpu * count};
}

Launch JobLaunch(const std::vector<Launch>& job) {
  Launch launch = job.front();
  launch.bootstrap.job_workers = static_cast<int>(job.size());
  launch.resources = TimesWorkers(launch.resources, launch.bootstrap.job_workers);
  return launch;
}

bool PackedBackend::StartMany(const std::vector<Launch>& launches, std::string* err) {
  // Jobs of one size at a time: a Slurm array's jobs share one script.
  std::map<std::size_t, std::vector<Launch>, std::greater<>> by_size;  // the full jobs first
  for (const std::vector<Launch>& job : PackIntoJobs(launches, per_job_)) {
    const std::string& id = job.front().bootstrap.worker_id;
    for (const Launch& launch : job) {
      live_[id].insert(launch.bootstrap.worker_id);
      job_of_[launch.bootstrap.worker_id] = id;
      // fiber logs --worker of any of the job's workers reads the job's.
      if (&launch != &job.front() && !launch.log_file.empty() && !job.front().log_file.empty()) {
        (void)::unlink(launch.log_file.c_str());
        (void)::symlink(job.front().log_file.c_str(), launch.log_file.c_str());
      }
    }
    by_size[job.size()].push_back(JobLaunch(job));
  }
  for (const auto& [size, jobs] : by_size)
    if (!jobs_->StartMany(jobs, err)) return false;
  return true;
}

void PackedBackend::Kill(const std::string& worker_id) {
  const auto it = job_of_.find(worker_id);
  if (it == job_of_.end()) return;
  const std::string job = it->second;
  job_of_.erase(it);
  std::set<std::string>& live = live_[job];
  live.erase(worker_id);
  if (live.empty()) {
    // Its end comes with the job's.
    live.insert(worker_id);
    job_of_[worker_id] = job;
    jobs_->Kill(job);
    return;
  }
  ended_.push_back({worker_id,
                    Because(end_word::kSignal, "killed by the master; its job " + job + " goes on with its " +
                                                   std::to_string(live.size()) + " other workers"),
                    ExitStatus::Killed(SIGKILL)});
}

std::vector<Exit> PackedBackend::Poll() {
  std::vector<Exit> exits;
  exits.swap(ended_);
  for (const Exit& job : jobs_->Poll()) {
    const auto it = live_.find(job.worker_id);
    if (it == live_.end()) continue;
    for (const std::string& id : it->second) {
      job_of_.erase(id);
      EndCause cause = job.cause;
      if (it->second.size() > 1) cause.text = "its job " + job.worker_id + " ended: " + cause.text;
      exits.push_back({id, std::move(cause), job.status});
    }
    live_.erase(it);
  }
  return exits;
}

std::vector<std::string> PackedBackend::Queued() const {
  std::vector<std::string> queued;
  for (const std::string& job : jobs_->Queued())
    if (const auto it = live_.find(job); it != live_.end()) queued.insert(queued.end(), it->second.begin(), it->second.end());
  return queued;
}

}  // namespace fiber::backend
