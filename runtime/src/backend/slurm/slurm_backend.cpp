#include "backend/slurm/slurm_backend.hpp"

#include <unistd.h>

#include <algorithm>
#include <utility>

#include "backend/command_line.hpp"
#include "backend/master_reach.hpp"
#include "backend/slurm/controller_limits.hpp"
#include "backend/slurm/partition_nodes.hpp"
#include "backend/slurm/run_jobs.hpp"
#include "backend/slurm/shared_squeue.hpp"
#include "backend/slurm/slurm_command.hpp"
#include "diagnostics/log.hpp"
#include "runs/run_dir.hpp"
#include "worker/worker_id.hpp"

namespace fiber::backend {

std::unique_ptr<Backend> SlurmBackend::Make(const config::Settings& settings) {
  return std::make_unique<SlurmBackend>(settings);
}

bool SlurmBackend::CheckReady(const config::Settings&, bool, std::string* err) { return CheckSlurmCommands(err); }

SlurmBackend::SlurmBackend(config::Settings settings) : settings_(std::move(settings)) {}

SlurmBackend::~SlurmBackend() { KillAll(); }

bool SlurmBackend::Prepare(const Launch& launch, std::string* err) {
  if (watch_) return true;
  if (!NodesReachMaster(launch.bootstrap.master, err)) return false;
  // Without fiber run, a directory of the run's id where fiber run would
  // have made one: under the user's home, which the nodes share.
  std::string run_dir = settings_.run_dir;
  if (run_dir.empty()) {
    if (!runs::RunsRoot(config::ProcessEnvironment, &run_dir, err))
      return false;
    run_dir += "/" + launch.bootstrap.run_id;
  }
  // Runs beside this one share squeue.
  const std::string share = SqueueSharePath(run_dir.substr(0, run_dir.rfind('/')));
  dir_ = runs::SlurmDir(run_dir);
  if (!runs::MakePrivateDirs(dir_, err)) return false;
  if (!launch.log_file.empty() && !runs::MakePrivateDirs(runs::WorkersDir(run_dir), err)) return false;
  std::string limits_err;
  if (!ReadControllerLimits(&limits_, &limits_err))
    log::Warning("cannot read Slurm's limits (" + limits_err + "): job arrays of at most " +
                 std::to_string(limits_.max_array_size) + " workers, Slurm's default");
  watch_ = WatchRunJobs(launch.bootstrap.run_id, share);
  submitter_ = std::make_unique<ArraySubmitter>(settings_, limits_.max_array_size);
  canceller_ = std::make_unique<JobCanceller>();
  return true;
}

bool SlurmBackend::NodesReachMaster(const std::string& master, std::string* err) const {
  if (!ThisMachineOnly(EndpointHost(master))) return true;
  std::vector<SlurmNode> nodes;
  std::string list_err;
  // When sinfo cannot say, sbatch will, with its own error.
  if (!ListPartitionNodes(settings_.partition, &nodes, &list_err)) return true;
  char host[256] = {};
  (void)::gethostname(host, sizeof host - 1);
  std::vector<std::string> elsewhere;
  for (const SlurmNode& node : nodes)
    if (!IsThisMachine(node, host)) elsewhere.push_back(node.name);
  if (elsewhere.empty()) return true;
  std::string names;
  for (std::size_t i = 0; i < elsewhere.size() && i < 3; ++i) names += (i ? ", " : "") + elsewhere[i];
  if (elsewhere.size() > 3) names += " and " + std::to_string(elsewhere.size() - 3) + " more";
  *err = "worker jobs may run on " + names + ", which cannot connect to the master at " + master +
         ", an address of this machine only: set advertise_host (or listen_host) to an address of this "
         "machine that the nodes reach, or master: cluster";
  return false;
}

bool SlurmBackend::Start(const Launch& launch, std::string* err) { return StartMany({launch}, err); }

bool SlurmBackend::StartMany(const std::vector<Launch>& launches, std::string* err) {
  if (launches.empty()) return true;
  // The run's pools share this backend: what Slurm refused is a request (a
  // pool's resources), not the run.
  const std::string asked = AskedOf(launches.front().resources);
  if (const auto never = never_.find(asked); never != never_.end()) {
    *err = never->second;
    return false;
  }
  if (!Prepare(launches.front(), err)) return false;
  WorkerArray array;
  const worker::Bootstrap& bootstrap = launches.front().bootstrap;
  array.run_id = bootstrap.run_id;
  array.command = CommandLineAtOwnPath();
  array.env = worker::ToEnvironmentWithSecretFile(bootstrap, "");
  array.key_dir = dir_;
  array.output = JobOutputPattern(dir_);
  array.resources = launches.front().resources;
  std::vector<long> numbers;
  for (const Launch& launch : launches) {
    long n = 0;
    if (!worker::WorkerNumber(launch.bootstrap.worker_id, &n)) {
      *err = "worker id '" + launch.bootstrap.worker_id + "' is not of the form wN";
      return false;
    }
    numbers.push_back(n);
  }
  // Jobs of several workers each (workers_per_job) a stride apart.
  array.stride = std::max(bootstrap.job_workers, 1);
  const long lowest = *std::min_element(numbers.begin(), numbers.end());
  for (long n : numbers)
    if ((n - lowest) % array.stride != 0) array.stride = 1;
  if (!WriteKeyFiles(dir_, launches, err)) return false;
  for (const Launch& launch : launches)
    jobs_[launch.bootstrap.worker_id] =
        WorkerJob{"", KeyFile(dir_, launch.bootstrap.worker_id), "", launch.log_file, asked, {}};
  // One array per run of numbers Slurm's MaxArraySize can index, submitted
  // in the background (ArraySubmitter): Poll learns their jobs.
  std::sort(numbers.begin(), numbers.end());
  // Numbers a stride apart: within max_array_size x stride of the lowest
  // is an index below max_array_size.
  for (const std::vector<long>& part : SplitIntoArrays(numbers, limits_.max_array_size * array.stride)) {
    array.SetNumbers(part);
    submitter_->Add(array);
  }
  return true;
}

void SlurmBackend::Submitted(const ArraySubmitter::Done& done, std::vector<Exit>* exits) {
  const auto now = JobWatch::Clock::now();
  std::vector<std::string> cancel;
  for (long index : done.array.indexes) {
    const std::string id = worker::WorkerId(static_cast<std::uint64_t>(done.array.NumberAt(index)));
    const auto it = jobs_.find(id);
    if (it == jobs_.end()) continue;
    WorkerJob& job = it->second;
    if (!done.error.empty()) {
      // Every replacement would be refused the same (exit status 126: it
      // cannot start), and so would a later pool asking the same.
      const std::string why = "its job could not be submitted: " + done.error;
      never_.emplace(job.asked, "Slurm refused worker " + id + "'s job: " + done.error);
      exits->push_back({id, Because(end_word::kCannotStart, why), ExitStatus::Exited(126)});
      job.Forget(id);
      jobs_.erase(it);
      continue;
    }
    job.Submitted(id, dir_, done.job_id, index, now);
    if (job.cancelled) cancel.push_back(job.job);  // Kill came while it was being submitted
  }
  canceller_->Cancel(std::move(cancel));
  if (done.error.empty()) watch_->Hurry();  // their first state, soon
}

void SlurmBackend::Kill(const std::string& worker_id) {
  const auto it = jobs_.find(worker_id);
  if (it == jobs_.end()) return;
  it->second.cancelled = true;
  long n = 0;
  if (it->second.job.empty()) {
    // Not submitted yet: it never will be, and it ends here.
    if (worker::WorkerNumber(worker_id, &n) && submitter_->Withdraw(n)) killed_.push_back(worker_id);
    return;
  }
  canceller_->Cancel({it->second.job});
}

std::vector<Exit> SlurmBackend::Poll() {
  std::vector<Exit> exits;
  queued_.clear();
  if (jobs_.empty()) return exits;
  for (const std::string& id : std::exchange(killed_, {})) {
    if (const auto it = jobs_.find(id); it != jobs_.end()) {
      exits.push_back({id, Because(end_word::kCancelled, "cancelled before its job was submitted"), {}});
      it->second.Forget(id);
      jobs_.erase(it);
    }
  }
  for (const ArraySubmitter::Done& done : submitter_->Take()) Submitted(done, &exits);
  SayHeld();
  JobListing listing;
  const std::string list_error = watch_->Read([&](const JobListing& latest, const std::string& error) {
    listing = latest;
    return error;
  });
  if (list_error != list_error_ && !list_error.empty())
    log::Warning("cannot list the run's Slurm jobs: " + list_error);
  list_error_ = list_error;
  for (auto it = jobs_.begin(); it != jobs_.end();) {
    const std::string& id = it->first;
    WorkerJob& job = it->second;
    if (job.job.empty()) {  // waits in fiber to be submitted
      queued_.push_back(id);
      ++it;
      continue;
    }
    const JobState state = job.StateIn(listing);
    if (state.hopeless && !never_.count(job.asked)) {
      never_[job.asked] = "Slurm will never run worker " + id + "'s job " + job.job + " as asked: " + state.waiting;
      job.cancelled = true;
      canceller_->Cancel({job.job});
    }
    if (!state.ended) {
      if (state.state == "PENDING" || !listing.jobs.count(job.job)) queued_.push_back(id);
      // Once per reason, as it is not news for the next worker.
      if (!state.waiting.empty() && state.reason != "JobArrayTaskLimit" && said_.insert(state.reason).second)
        log::Warning("worker " + id + "'s job " + job.job + " waits in Slurm's queue: " + state.waiting);
      ++it;
      continue;
    }
    exits.push_back({id, state.end, state.status});
    job.Forget(id);
    it = jobs_.erase(it);
  }
  return exits;
}

void SlurmBackend::SayHeld() {
  HeldWorkers held;
  held.why = submitter_->waiting();
  if (!held.why.empty())
    for (const auto& [id, job] : jobs_)
      if (job.job.empty()) held.worker_ids.push_back(id);
  // Once per refusal on a terminal; as it stands, to fiber ps.
  if (!held.why.empty() && said_.insert(held.why).second)
    log::Warning(std::to_string(held.worker_ids.size()) + " workers wait in fiber to be submitted, Slurm refusing " +
                 "more jobs for now (" + held.why + "); fiber submits them as Slurm makes room");
  if (held.why != held_.why || held.worker_ids != held_.worker_ids) {
    WriteHeldWorkers(dir_, held);
    held_ = std::move(held);
  }
}

void SlurmBackend::KillAll() {
  // Nothing more is submitted; what was, is cancelled with the rest.
  if (submitter_) {
    submitter_->Stop();
    std::vector<Exit> unused;
    for (const ArraySubmitter::Done& done : submitter_->Take()) Submitted(done, &unused);
  }
  if (!dir_.empty()) WriteHeldWorkers(dir_, {});
  if (jobs_.empty()) return;
  std::vector<std::string> all;
  for (const auto& [id, job] : jobs_)
    if (!job.job.empty()) all.push_back(job.job);
  std::string err;
  if (!CancelJobs(all, &err)) log::Warning("cannot cancel the run's Slurm jobs: " + err);
  if (watch_) watch_->Hurry();  // to see them end soon
  // Gone once squeue shows them ended, or when it cannot say.
  const auto deadline = JobWatch::Clock::now() + kKillAllWait;
  for (auto after = JobWatch::Clock::now(); err.empty() && JobWatch::Clock::now() < deadline;) {
    if (!watch_->Wait(deadline - JobWatch::Clock::now(),
                      [&](const JobListing& latest, const std::string&) { return latest.taken > after; }))
      break;
    const JobListing listing = watch_->snapshot();
    after = listing.taken;
    bool all_ended = true;
    for (const auto& [id, job] : jobs_) {
      const auto found = listing.jobs.find(job.job);
      all_ended = all_ended && (found == listing.jobs.end() || found->second.ended);
    }
    if (all_ended) break;
  }
  for (const auto& [id, job] : jobs_) job.Forget(id);
  jobs_.clear();
}

}  // namespace fiber::backend
