#include "backend/slurm/slurm_master_placement.hpp"

#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <thread>
#include <utility>

#include "backend/slurm/job_state.hpp"
#include "backend/slurm/run_jobs.hpp"
#include "backend/slurm/shared_squeue.hpp"
#include "backend/slurm/slurm_command.hpp"
#include "backend/slurm/slurm_run_records.hpp"
#include "config/setting_table.hpp"
#include "runs/run_dir.hpp"

namespace fiber::backend {

namespace {

using Clock = std::chrono::steady_clock;

// Between two looks at the master's job: the user's shared squeue
// (shared_squeue.hpp), which the masters' watches run as well.
constexpr auto kPollInterval = kSqueueFloor;

// Never set: a launcher's look at its master's job is not cut short.
const std::atomic<bool> kNotStopping{false};

// The master's job, submitted, as squeue lists it.
class SlurmMaster : public RunningMaster {
 public:
  SlurmMaster(std::string run_id, std::string job, std::string master_log, std::string share)
      : run_id_(std::move(run_id)), job_(std::move(job)), master_log_(std::move(master_log)),
        share_(std::move(share)) {
    words_.started = "the master runs as Slurm job " + job_;
    words_.name = "the master's job " + job_;
    words_.waits = "waits in Slurm's queue";
  }
  const MasterWords& words() const override { return words_; }
  std::string engine_id() const override { return job_; }
  bool engine_writes_master_log() const override { return true; }

  MasterState Wait(std::chrono::milliseconds timeout) override {
    if (state_.phase == MasterState::Phase::kEnded) return state_;
    const auto now = Clock::now();
    if (now < next_poll_) {
      std::this_thread::sleep_for(std::min<Clock::duration>(timeout, next_poll_ - now));
      return state_;
    }
    next_poll_ = now + kPollInterval;
    // A listing made since the last look (another run's, maybe), never
    // one from before the job was submitted: it would lack the job.
    const Clock::time_point since = std::exchange(looked_, now);
    UserJobs user;
    std::string err;
    if (!ListUserJobs(share_, since, kNotStopping, &user, &err) || !user.error.empty()) {
      state_.trouble = "cannot list the master's job: " + (err.empty() ? user.error : err);
      return state_;
    }
    state_.trouble.clear();
    std::map<std::string, std::vector<JobState>> by_run = JobsOfRuns(user.text, {run_id_});
    const JobState* master = nullptr;
    for (const JobState& j : by_run[run_id_])
      if (j.master && j.job == job_) master = &j;
    if (!master) {
      state_.phase = MasterState::Phase::kEnded;
      state_.error = "Slurm no longer lists the master's job " + job_;
      return state_;
    }
    state_.waiting = master->waiting;
    if (master->hopeless) {
      state_.phase = MasterState::Phase::kEnded;
      state_.error = "Slurm will never run the master's job " + job_ + " as asked: " + master->waiting;
      std::string unused;  // said: it never ran
      (void)Kill(&unused);
    } else if (master->ended) {
      state_.phase = MasterState::Phase::kEnded;
      state_.exit = master->status;
    } else if (master->state == "RUNNING") {
      state_.phase = MasterState::Phase::kRunning;
    }
    return state_;
  }

  bool Stop(int, std::string* err) override { return Cancel(true, err); }
  bool Kill(std::string* err) override { return Cancel(false, err); }

  // What Slurm appended to the master log since the last call.
  std::string TakeOutput() override {
    std::ifstream in(master_log_, std::ios::binary);
    if (!in || !in.seekg(static_cast<std::streamoff>(read_))) return "";
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    read_ += text.size();
    return text;
  }

 private:
  bool Cancel(bool term, std::string* err) {
    if (CancelJobs({job_}, err, {}, term)) return true;
    *err = "cannot cancel the master's job: " + *err;
    return false;
  }

  const std::string run_id_, job_, master_log_;
  const std::string share_;  // SqueueSharePath
  MasterWords words_;
  MasterState state_;
  Clock::time_point next_poll_ = Clock::now();
  Clock::time_point looked_ = Clock::now();  // the last look began (first: the job was submitted)
  std::size_t read_ = 0;  // of the master log
};

}  // namespace

std::string MasterScript(const MasterLaunch& launch) {
  std::string s = "#!/bin/sh\n# The master of fiber run " + launch.run_id + ".\n";
  for (const std::string& kv : launch.program_env) {
    const std::string name = kv.substr(0, kv.find('='));
    const char* here = std::getenv(name.c_str());
    if (here && kv.substr(name.size() + 1) == here) continue;  // inherited through sbatch
    // Never a name that is not one (fiber run refuses such an --env): it
    // would be shell code in the script.
    s += ShellExport(name, kv.substr(name.size() + 1));
  }
  s += "export " + std::string(config::FindSetting("master")->variable) + "=local\n";
  if (launch.resolved.sources.at("listen_host") == "default") {
    s += "address=$(hostname -I 2>/dev/null | cut -d' ' -f1)\n";
    s += "export " + std::string(config::FindSetting("listen_host")->variable) + "=\"${address:-127.0.0.1}\"\n";
  }
  s += "exec";
  for (const std::string& arg : launch.command) {
    s += ' ';  // not " " + ...: GCC 12's false -Wrestrict at -O3 (backend/slurm/run_jobs.cpp)
    s += ShellQuoted(arg);
  }
  return s + "\n";
}

std::unique_ptr<RunningMaster> SlurmMasterPlacement::Start(const MasterLaunch& launch, std::string* err) const {
  std::vector<std::string> args = {"sbatch", "--parsable"};
  for (std::string& arg : SchedulingArguments(launch.resolved.settings)) args.push_back(std::move(arg));
  args.push_back("--job-name=" + JobName(launch.run_id));
  args.push_back("--comment=" + MasterJobComment(launch.run_id));
  const std::string master_log = runs::MasterLogPath(launch.run_dir);
  args.push_back("--output=" + master_log);
  args.push_back("--open-mode=append");
  std::string out, job;
  if (!RunSlurm(args, MasterScript(launch), &out, err) || !ParseSbatchJobId(out, &job)) {
    if (err->empty()) *err = "sbatch --parsable printed no job id: '" + out.substr(0, 200) + "'";
    return nullptr;
  }
  return std::make_unique<SlurmMaster>(launch.run_id, job, master_log,
                                       SqueueSharePath(launch.run_dir.substr(0, launch.run_dir.rfind('/'))));
}

bool SlurmMasterPlacement::State(const RunPlace& run, bool* runs, std::optional<ExitStatus>* exit,
                                 std::string* err) const {
  *runs = false;
  std::vector<JobState> jobs;
  if (!ListRunJobs(run.id, &jobs, err, SlurmEnvOf(run))) {
    *err = SlurmClusterOf(run) + ": " + *err;
    return false;
  }
  for (const JobState& job : jobs) {
    if (!job.master || run.master_job.empty() || job.job != run.master_job) continue;
    *runs = !job.ended;
    if (job.ended) *exit = job.status;
  }
  return true;
}

bool SlurmMasterPlacement::Stop(const RunPlace& run, bool force, std::string* err) const {
  if (run.master_job.empty()) {
    *err = "run " + run.id + " has no master in a cluster to stop";
    return false;
  }
  if (CancelJobs({run.master_job}, err, SlurmEnvOf(run), !force)) return true;
  *err = SlurmClusterOf(run) + ": " + *err;
  return false;
}

}  // namespace fiber::backend
