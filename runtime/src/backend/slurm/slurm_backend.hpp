// Workers as Slurm jobs, through Slurm's own commands (run_jobs.hpp). The
// workers a pool starts together are job arrays (sbatch --array, "%N" from
// array_limit), cut where the controller's MaxArraySize says
// (controller_limits.hpp), each task the master's program at the same path
// on the shared filesystem, asking for the pool's CPUs, memory and GPUs, in
// the partition, account and QOS the settings name. They are submitted in
// the background (array_submitter.hpp): a busy controller is tried again,
// and workers Slurm has no room for yet (MaxSubmitJobs, MaxJobCount) wait
// in fiber, said on the log and to fiber ps (held_workers.hpp), until it
// has. A worker's key waits for it in a file of the run's directory only
// its owner reads (mode 0600), which the worker deletes once read: no
// command line, script or job environment holds it. Each job's output is a
// file there too, which the worker's log links to (worker_job.hpp).
//
// One squeue for the whole run, every second and less often while nothing
// changes (job_watch.hpp), tells how each job goes: Poll reports those that
// ended (with their exit status, or cancelled, preempted, out of time),
// says once per reason why jobs wait in the queue, and treats a job Slurm
// says it will never run as asked (PartitionConfig: more CPUs than any
// node has) as an error, not a wait.
//
// Driven from the master's I/O thread only, like every backend.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "backend/slurm/array_submitter.hpp"
#include "backend/slurm/controller_limits.hpp"
#include "backend/slurm/held_workers.hpp"
#include "backend/slurm/job_canceller.hpp"
#include "backend/slurm/job_watch.hpp"
#include "backend/slurm/worker_job.hpp"

namespace fiber::backend {

class SlurmBackend : public Backend {
 public:
  static std::unique_ptr<Backend> Make(const config::Settings& settings);
  /// False with *err when a Slurm command it runs is not installed
  /// (CheckSlurmCommands).
  [[nodiscard]] static bool CheckReady(const config::Settings& settings, bool image_coming, std::string* err);
  explicit SlurmBackend(config::Settings settings);
  ~SlurmBackend() override;
  const char* name() const override { return "slurm"; }
  [[nodiscard]] bool Start(const Launch& launch, std::string* err) override;
  [[nodiscard]] bool StartMany(const std::vector<Launch>& launches, std::string* err) override;
  void Kill(const std::string& worker_id) override;
  std::vector<Exit> Poll() override;
  void KillAll() override;
  std::vector<std::string> Queued() const override { return queued_; }
  void ConnectionClosed(const std::string&) override {
    if (watch_) watch_->Hurry();  // squeue soon, for how its job ended
  }
  /// A queued job costs the master nothing: a whole pool may be submitted
  /// as one array.
  int MaxStarting() const override { return 256; }

 private:
  [[nodiscard]] bool Prepare(const Launch& launch, std::string* err);
  /// False with *err when the master's address is this machine's only and
  /// the partition has nodes that are not this machine.
  [[nodiscard]] bool NodesReachMaster(const std::string& master, std::string* err) const;
  /// Gives the workers of an array submitted their jobs, or ends them
  /// (into *exits) with sbatch's refusal.
  void Submitted(const ArraySubmitter::Done& done, std::vector<Exit>* exits);
  /// Says which workers wait in fiber to be submitted, and why: once per
  /// reason on the log, as it stands in the HeldWorkers file for fiber ps.
  void SayHeld();

  config::Settings settings_;
  std::string dir_;  // the run's Slurm directory (runs/run_dir.hpp)
  std::unique_ptr<JobWatch> watch_;
  ControllerLimits limits_;                    // read once, in Prepare
  std::unique_ptr<ArraySubmitter> submitter_;  // made in Prepare
  std::unique_ptr<JobCanceller> canceller_;    // made in Prepare: Kill's scancel, off the I/O thread
  std::vector<std::string> killed_;            // killed before they were submitted: exits for Poll
  HeldWorkers held_;                           // as the file last said
  std::map<std::string, WorkerJob> jobs_;  // not yet seen to end, by worker id
  std::vector<std::string> queued_;        // workers whose jobs were pending at the last Poll
  std::set<std::string> said_;             // reasons for waiting already said
  std::string list_error_;                 // the squeue failure last said
  /// Once Slurm said it will never run a worker's job as asked: why, by
  /// what it asked (a pool's resources); later starts asking the same fail
  /// with it rather than queue the same again.
  std::map<std::string, std::string> never_;
};

}  // namespace fiber::backend
