// Several workers in one pod, Slurm job or container (workers_per_job): a
// Backend that starts, kills and reports workers one by one over the
// engine's backend, which starts jobs. Workers started together are packed
// into jobs of at most per_job, each a run of consecutive worker numbers
// whose first names the job (its launch's worker id, wN); the program
// started in the job forks the others (worker/job_supervisor.hpp).
// Resources are per worker: a job asks for its count times them.
//
// A job's end ends each of its workers not ended before, as the job ended
// (a lost pod loses all its workers). Killing a worker whose job holds
// others kills only the job's last: the worker killed is reported ended at
// once, and the master refuses it when it next speaks, which ends it
// (master/dispatcher.cpp). Driven from the master's I/O thread only, like
// every backend; not thread-safe.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "backend/backend.hpp"

namespace fiber::backend {

/// Splits launches into jobs: runs of consecutive worker numbers, at most
/// per_job each, in their order. Each job is its launches.
std::vector<std::vector<Launch>> PackIntoJobs(const std::vector<Launch>& launches, int per_job);
/// The launch of a job of these workers: the first's, for job.size()
/// workers, asking for job.size() times each one's resources.
Launch JobLaunch(const std::vector<Launch>& job);
/// r for count workers together.
Resources TimesWorkers(const Resources& r, int count);

class PackedBackend : public Backend {
 public:
  PackedBackend(std::unique_ptr<Backend> jobs, int per_job) : jobs_(std::move(jobs)), per_job_(per_job) {}

  const char* name() const override { return jobs_->name(); }
  [[nodiscard]] bool Start(const Launch& launch, std::string* err) override { return StartMany({launch}, err); }
  [[nodiscard]] bool StartMany(const std::vector<Launch>& launches, std::string* err) override;
  void Kill(const std::string& worker_id) override;
  std::vector<Exit> Poll() override;
  std::vector<std::string> Queued() const override;
  void KillAll() override { jobs_->KillAll(); }
  int MaxStarting() const override { return jobs_->MaxStarting() * per_job_; }

 private:
  std::unique_ptr<Backend> jobs_;  // the engine's, one launch per job
  int per_job_;
  std::map<std::string, std::set<std::string>> live_;  // a job's workers not ended, by job id
  std::map<std::string, std::string> job_of_;          // each of those, to its job
  std::vector<Exit> ended_;                            // killed, not yet taken by Poll
};

}  // namespace fiber::backend
