// fiber logs [-f] [--worker ID | --all] RUN: the master's output, one
// worker's, or all of them prefixed; -f follows until the run ends. A worker
// whose container or pod is still there is read from the engine or the
// API server; one whose container or pod was removed, from the copy its
// removal left in the run's directory (backend::RunRecords). A Slurm
// worker's log is its job's output file, to which the run's directory
// links (backend/slurm/).
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <thread>

#include "backend/engine_adapter.hpp"
#include "commands.hpp"
#include "log_follower.hpp"
#include "run_store.hpp"
#include "runs/run_dir.hpp"

namespace fiber::cli {

namespace {

struct LogsOptions {
  std::string run, worker;
  bool follow = false, all = false;
};

// Writes a piece of a worker's log to stdout at once.
bool ShowChunk(std::string_view chunk) {
  std::fwrite(chunk.data(), 1, chunk.size(), stdout);
  std::fflush(stdout);
  return true;
}

// The worker's log as its engine keeps it (its container's or pod's), when
// it has one: true once shown (or on an error, said); false when the
// engine has no such worker.
bool FromEngine(const RunRecord& run, const LogsOptions& o, int* status) {
  const backend::RunPlace place = PlaceOf(run);
  const backend::RunRecords* records = backend::RecordsOf(place);
  bool found = false;
  std::string err;
  if (!records) return false;
  const bool ok = records->ReadLog(place, o.worker, o.follow, ShowChunk, &found, &err);
  if (!found) return false;
  if (!ok) Error("cannot read worker " + o.worker + "'s log from its " + records->words().thing + ": " + err);
  *status = ok ? 0 : 1;
  return true;
}

int Logs(const LogsOptions& o) {
  RunStore store(RunsRoot());
  RunRecord run;
  std::string err;
  if (!store.Find(o.run, &run, &err)) {
    Error(err);
    return 1;
  }
  const bool master = o.worker.empty();
  const std::string prefix_master = o.all ? "[master] " : "";
  // The master's log is one file in the run's directory, the workers' a
  // directory: one follower reads both the same way.
  LogFollower master_log(run.dir, [&](const std::string& id, const std::string& line) {
    if (id == "master") std::printf("%s%s\n", prefix_master.c_str(), line.c_str());
  }, "master");
  LogFollower workers(runs::WorkersDir(run.dir), [&](const std::string& id, const std::string& line) {
    if (o.all) {
      std::printf("[%s] %s\n", id.c_str(), line.c_str());
    } else {
      std::printf("%s\n", line.c_str());
    }
  }, o.all ? "" : o.worker);
  int status = 0;
  if (!master && !o.all && FromEngine(run, o, &status)) return status;
  if (!master && !o.all && ::access(runs::WorkerLogPath(run.dir, o.worker).c_str(), R_OK) != 0) {
    Error("run " + run.id + " has no worker '" + o.worker + "'");
    return 1;
  }
  for (;;) {
    const bool running = RunStore::StateOf(run) == RunState::kRunning;
    if (master || o.all) master_log.Poll();
    if (!master || o.all) workers.Poll();
    std::fflush(stdout);
    if (!o.follow || !running) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    std::string unused;
    (void)store.Find(run.id, &run, &unused);  // its status, once it ends
  }
  if (master || o.all) master_log.Flush();
  if (!master || o.all) workers.Flush();
  return 0;
}

}  // namespace

void AddLogsCommand(CLI::App& app, int* status) {
  auto o = std::make_shared<LogsOptions>();
  CLI::App* logs = app.add_subcommand("logs", "show a run's output");
  logs->add_option("RUN", o->run, "run id, unique prefix of one, or name")->required();
  logs->add_flag("-f,--follow", o->follow, "follow until the run ends");
  auto* worker = logs->add_option("--worker", o->worker, "one worker's output (e.g. w3)");
  logs->add_flag("--all", o->all, "the master's and every worker's output, prefixed")->excludes(worker);
  logs->callback([=] { *status = Logs(*o); });
}

}  // namespace fiber::cli
