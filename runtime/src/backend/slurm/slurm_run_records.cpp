#include "backend/slurm/slurm_run_records.hpp"

#include <iterator>

#include "backend/labels.hpp"
#include "backend/slurm/held_workers.hpp"
#include "backend/slurm/run_jobs.hpp"
#include "backend/slurm/slurm_command.hpp"
#include "runs/run_dir.hpp"

namespace fiber::backend {

namespace {

WorkerRecord JobRecord(const JobState& job) {
  WorkerRecord w;
  w.worker_id = job.master ? kMasterRole : job.worker_id;
  w.where = job.job;
  w.node = job.node;
  w.phase = job.ended               ? WorkerRecord::Phase::kEnded
            : job.state == "RUNNING" ? WorkerRecord::Phase::kRunning
                                     : WorkerRecord::Phase::kPending;
  w.engine_state = job.state;
  w.waiting = job.waiting;
  if (job.ended && !job.hopeless) w.exit = job.status;
  return w;
}

// The state fiber ps shows for a worker held back by its master, in
// Slurm's style (held_workers.hpp).
constexpr const char* kNotSubmitted = "NOT_SUBMITTED";

// The key directory of the run's workers; "" for a run without a directory.
std::string KeyDirOf(const RunPlace& run) { return run.dir.empty() ? "" : runs::SlurmDir(run.dir); }

}  // namespace

std::vector<std::string> SlurmEnvOf(const RunPlace& run) {
  std::vector<std::string> env;
  if (run.engine_env)
    for (const char* name : kSlurmVariables)
      if (const auto it = run.engine_env->find(name); it != run.engine_env->end())
        env.push_back(std::string(name) + "=" + it->second);
  return env;
}

std::string SlurmClusterOf(const RunPlace& run) {
  std::string names;
  for (const std::string& entry : SlurmEnvOf(run)) names += (names.empty() ? "" : " ") + entry;
  return names.empty() ? "this machine's Slurm cluster" : "the Slurm cluster of " + names;
}

std::vector<const char*> SlurmRunRecords::variables() const {
  return std::vector<const char*>(std::begin(kSlurmVariables), std::end(kSlurmVariables));
}

const RecordWords& SlurmRunRecords::words() const {
  static const RecordWords kWords{"jobs", "Slurm job", "job", "state", true};
  return kWords;
}

RunsWorkers SlurmRunRecords::List(const std::vector<RunPlace>& runs) const {
  // One squeue per Slurm cluster the runs used.
  std::map<std::vector<std::string>, std::vector<const RunPlace*>> by_cluster;
  for (const RunPlace& run : runs) by_cluster[SlurmEnvOf(run)].push_back(&run);
  RunsWorkers out;
  for (const auto& [env, of_cluster] : by_cluster) {
    std::vector<std::string> ids;
    for (const RunPlace* run : of_cluster) ids.push_back(run->id);
    std::map<std::string, std::vector<JobState>> found;
    std::string err;
    const bool ok = ListRunsJobs(ids, &found, &err, env);
    for (const RunPlace* run : of_cluster) {
      if (!ok) {
        out.errors[run->id] = SlurmClusterOf(*run) + ": " + err;
        continue;
      }
      // Ended jobs are Slurm's history, not the run's: but for those Slurm
      // will never run, which still hold a place in its queue.
      std::vector<WorkerRecord>& workers = out.workers[run->id];
      for (const JobState& job : found[run->id])
        if (!job.ended || job.hopeless) workers.push_back(JobRecord(job));
      // Those its master holds back until Slurm takes more jobs.
      const HeldWorkers held = ReadHeldWorkers(KeyDirOf(*run));
      for (const std::string& id : held.worker_ids)
        workers.push_back({id, "", "", WorkerRecord::Phase::kPending, kNotSubmitted, held.why, {}});
    }
  }
  return out;
}

bool SlurmRunRecords::Leftovers(const RunPlace& run, std::vector<std::string>* out, std::string*) const {
  // Keys waiting for workers whose jobs never started, on the shared disk.
  const std::string keys = Counted(static_cast<int>(UnreadKeyFiles(KeyDirOf(run)).size()), "key file");
  if (!keys.empty()) out->push_back(keys);
  return true;
}

bool SlurmRunRecords::Remove(const RunPlace& run, int* removed, std::string* err) const {
  if (CancelRun(run.id, KeyDirOf(run), removed, err, SlurmEnvOf(run))) return true;
  *err = SlurmClusterOf(run) + ": " + *err;
  return false;
}

}  // namespace fiber::backend
