// fiber stop [--force] RUN: stops a run as Ctrl-C would (SIGTERM to its
// launcher, which forwards it and enforces the grace period), or at once;
// then removes whatever containers or pods of the run are left (found by
// label: its launcher and master may have died before they could). A
// master in the cluster (master: cluster) that outlived its launcher is
// stopped through its engine, and its end recorded.
#include <signal.h>

#include <chrono>
#include <cstdio>
#include <thread>

#include "backend/engine_adapter.hpp"
#include "commands.hpp"
#include "error_line.hpp"
#include "os/exit_status.hpp"
#include "run_removal.hpp"
#include "run_store.hpp"

namespace fiber::cli {

namespace {

// 0, or 1 after saying why the run's containers or pods could not all be
// removed.
int RemoveWorkers(const RunRecord& run) {
  std::string removed, err;
  if (!RemoveRunWorkers(run, &removed, &err)) {
    Error("cannot remove the workers of run " + run.id + ": " + err);
    return 1;
  }
  if (!removed.empty()) std::fprintf(stderr, "fiber: removed %s of run %s\n", removed.c_str(), run.id.c_str());
  return 0;
}

// Has the engine stop a master in the cluster as its launcher would have
// (backend::MasterPlacement::Stop).
bool StopClusterMaster(const RunRecord& run, bool force, std::string* err) {
  const backend::RunPlace place = PlaceOf(run);
  const backend::MasterPlacement* placement = backend::PlacementOf(place);
  if (!placement) {
    *err = "run " + run.id + " has no master in a cluster to stop";
    return false;
  }
  return placement->Stop(place, force, err);
}

int Stop(const std::string& key, bool force) {
  RunStore store(RunsRoot());
  RunRecord run;
  std::string err;
  if (!store.Find(key, &run, &err)) {
    Error(err);
    return 1;
  }
  const RunState state = RunStore::StateOf(run);
  if (state == RunState::kUnknown) {
    Error("cannot stop run " + run.id + ": cannot tell whether its master still runs in the cluster: " +
          run.master_unknown);
    return 1;
  }
  if (state != RunState::kRunning) {
    std::fprintf(stderr, "fiber: run %s has already ended\n", run.id.c_str());
    return RemoveWorkers(run);
  }
  // Only the processes the record names: a pid reused since is another's.
  const bool launcher = SameProcess(run.supervisor_pid, run.supervisor_start);
  const bool master = SameProcess(run.master_pid, run.master_start);
  // A master in the cluster whose launcher is gone: its engine stops it.
  const bool in_cluster = run.launcher_gone;
  if (in_cluster) {
    if (!StopClusterMaster(run, force, &err)) {
      Error("cannot stop the master of run " + run.id + ": " + err);
      return 1;
    }
  } else if (force) {
    // The master leads its own process group: its workers go with it. A
    // master in a pod (master: cluster) goes with the run's Secret, which
    // is removed below once its launcher is gone.
    if (master)
      ::kill(-static_cast<pid_t>(run.master_pid), SIGKILL);
    else if (launcher)
      ::kill(static_cast<pid_t>(run.supervisor_pid), SIGKILL);
  } else if (launcher) {
    ::kill(static_cast<pid_t>(run.supervisor_pid), SIGTERM);
  } else if (master) {
    ::kill(static_cast<pid_t>(run.master_pid), SIGTERM);
  }
  // Its launcher records the end; without one, the master's death is the
  // end, which fiber stop records for a master in the cluster. Its engine
  // is asked gently, and told to kill it once the grace period is over.
  using Clock = std::chrono::steady_clock;
  const auto kill_at = Clock::now() + std::chrono::milliseconds(static_cast<long long>(run.grace_seconds * 1000)) +
                       std::chrono::seconds(5);
  const auto deadline = (in_cluster ? kill_at : Clock::now()) + std::chrono::seconds(120);
  while (Clock::now() < deadline) {
    (void)store.Find(run.id, &run, &err);
    const RunState now = RunStore::StateOf(run);
    if (now == RunState::kExited || now == RunState::kMasterDied) {
      if (in_cluster && !RecordEnd(run, run.exit_status.value_or(ExitStatus::Killed(force ? SIGKILL : SIGTERM).code()), &err))
        Error(err);
      return RemoveWorkers(run);
    }
    if (in_cluster && !force && Clock::now() > kill_at) {
      force = true;
      if (!StopClusterMaster(run, true, &err)) Error("cannot kill the master of run " + run.id + ": " + err);
    }
    std::this_thread::sleep_for(in_cluster ? std::chrono::milliseconds(1000) : std::chrono::milliseconds(100));
  }
  Error("run " + run.id + " is still running after 120 s; try fiber stop --force");
  return 1;
}

}  // namespace

void AddStopCommand(CLI::App& app, int* status) {
  auto key = std::make_shared<std::string>();
  auto force = std::make_shared<bool>(false);
  CLI::App* stop = app.add_subcommand("stop", "stop a run as Ctrl-C would, and wait for it to end");
  stop->add_option("RUN", *key, "run id, unique prefix of one, or name")->required();
  stop->add_flag("--force", *force, "end it and its workers at once");
  stop->callback([=] { *status = Stop(*key, *force); });
}

}  // namespace fiber::cli
