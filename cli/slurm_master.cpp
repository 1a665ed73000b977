#include "slurm_master.hpp"

#include <signal.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "backend/slurm/run_jobs.hpp"
#include "backend/slurm/slurm_command.hpp"
#include "backend/worker_output.hpp"
#include "config/setting_table.hpp"
#include "log_follower.hpp"
#include "runs/run_dir.hpp"
#include "supervisor.hpp"

namespace fiber::cli {

namespace {

using Clock = std::chrono::steady_clock;

// Between two squeues of the master's job.
constexpr auto kPollInterval = std::chrono::seconds(1);

void Write(int fd, const std::string& text) { (void)!::write(fd, text.data(), text.size()); }

}  // namespace

std::string MasterScript(const ClusterMasterOptions& o) {
  std::string s = "#!/bin/sh\n# The master of fiber run " + o.run_id + ".\n";
  for (const std::string& kv : o.program_env) {
    const std::string name = kv.substr(0, kv.find('='));
    const char* here = std::getenv(name.c_str());
    if (here && kv.substr(name.size() + 1) == here) continue;  // inherited through sbatch
    // Never a name that is not one (fiber run refuses such an --env): it
    // would be shell code in the script.
    s += backend::ShellExport(name, kv.substr(name.size() + 1));
  }
  s += "export " + std::string(config::FindSetting("master")->variable) + "=local\n";
  if (o.resolved.sources.at("listen_host") == "default") {
    s += "address=$(hostname -I 2>/dev/null | cut -d' ' -f1)\n";
    s += "export " + std::string(config::FindSetting("listen_host")->variable) + "=\"${address:-127.0.0.1}\"\n";
  }
  s += "exec";
  for (const std::string& arg : o.command) {
    s += ' ';  // not " " + ...: GCC 12's false -Wrestrict at -O3 (backend/slurm/run_jobs.cpp)
    s += backend::ShellQuoted(arg);
  }
  return s + "\n";
}

int SuperviseSlurmMaster(const ClusterMasterOptions& o, std::string* err) {
  const auto say = [&](const std::string& line) {
    if (!o.quiet && !o.detached) Write(2, "fiber: " + line + "\n");
  };
  std::vector<std::string> args = {"sbatch", "--parsable"};
  for (std::string& arg : backend::SchedulingArguments(o.resolved.settings)) args.push_back(std::move(arg));
  args.push_back("--job-name=" + backend::JobName(o.run_id));
  args.push_back("--comment=" + backend::MasterJobComment(o.run_id));
  args.push_back("--output=" + runs::MasterLogPath(o.run_dir));
  args.push_back("--open-mode=append");

  // Signals are taken from here on, so none ends fiber run with the job queued.
  const int signals = TakeStopSignals(false);
  if (signals < 0) {
    *err = std::string("cannot set up the run: ") + std::strerror(errno);
    return kFiberError;
  }
  std::string out, job;
  if (!backend::RunSlurm(args, MasterScript(o), &out, err) || !backend::ParseSbatchJobId(out, &job)) {
    if (err->empty()) *err = "sbatch --parsable printed no job id: '" + out.substr(0, 200) + "'";
    ::close(signals);
    return kFiberError;
  }
  say("the master runs as Slurm job " + job);
  if (o.on_submitted) o.on_submitted(job);

  LogFollower output(o.run_dir, [&](const std::string&, const std::string& line) {
    if (!o.detached) Write(1, line + "\n");
  }, "master");
  LogFollower workers(runs::WorkersDir(o.run_dir), [&](const std::string& id, const std::string& line) {
    if (!o.detached) Write(2, backend::HeadedLine(id, line));
  });
  const auto cancel = [&](bool term) {
    std::string cancel_err;
    if (!backend::CancelJobs({job}, &cancel_err, {}, term)) say("cannot cancel the master's job: " + cancel_err);
  };
  int stops = 0;
  int status = kFiberError;
  std::string waiting, list_error;
  auto deadline = Clock::time_point::max();  // of the grace period, once one runs
  auto next_poll = Clock::now();
  for (;;) {
    output.Poll();
    workers.Poll();
    signalfd_siginfo info;
    while (::read(signals, &info, sizeof info) == sizeof info) {
      if (++stops == 1) {
        say(std::string("stopping the run (") + strsignal(static_cast<int>(info.ssi_signo)) + " again to force)");
        cancel(true);
        deadline = Clock::now() + o.grace;
      } else {
        say("ending the run now");
        cancel(false);
      }
    }
    if (Clock::now() > deadline) {
      say("the program did not stop within " + std::to_string(o.grace.count() / 1000.0).substr(0, 4) +
          " s; ending it");
      cancel(false);
      deadline = Clock::time_point::max();
    }
    if (Clock::now() < next_poll) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      continue;
    }
    next_poll = Clock::now() + kPollInterval;
    std::vector<backend::JobState> jobs;
    std::string list_err;
    if (!backend::ListRunJobs(o.run_id, &jobs, &list_err)) {
      if (list_err != list_error) say("cannot list the master's job: " + list_err);
      list_error = list_err;
      continue;
    }
    const backend::JobState* master = nullptr;
    for (const auto& j : jobs)
      if (j.master && j.job == job) master = &j;
    if (!master) {
      *err = "Slurm no longer lists the master's job " + job;
      break;
    }
    if (master->waiting != waiting && !master->waiting.empty())
      say("the master's job " + job + " waits in Slurm's queue: " + master->waiting);
    waiting = master->waiting;
    if (master->hopeless) {
      *err = "Slurm will never run the master's job " + job + " as asked: " + master->waiting;
      cancel(false);
      break;
    }
    if (master->ended) {
      status = master->status.code();
      break;
    }
  }
  output.Flush();
  workers.Flush();
  ::close(signals);
  return status;
}

}  // namespace fiber::cli
