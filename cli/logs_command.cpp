// fiber logs [-f] [-t] [--worker ID | --all] RUN: the master's output, one
// worker's, or all of them prefixed and merged in time order; -t shows
// when each line was written (runs/log_stamps.hpp; of a log read from its
// engine, the engine's times, in the same form); -f follows until the
// run ends, then says how it ended and exits with its exit status. A worker
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
#include "backend/line_splitter.hpp"
#include "commands.hpp"
#include "error_line.hpp"
#include "log_follower.hpp"
#include "run_store.hpp"
#include "runs/log_stamps.hpp"
#include "runs/run_dir.hpp"

namespace fiber::cli {

namespace {

struct LogsOptions {
  std::string run, worker;
  bool follow = false, all = false, timestamps = false;
};

// Writes a piece of a worker's log to stdout at once.
bool ShowChunk(std::string_view chunk) {
  std::fwrite(chunk.data(), 1, chunk.size(), stdout);
  std::fflush(stdout);
  return true;
}

// The worker's log as its engine keeps it (its container's or pod's), when
// it has one: true once shown (or on an error, said); false when the
// engine has no such worker. With -t, the engine's times of its lines, in
// the form of those read from the run's directory.
bool FromEngine(const RunRecord& run, const LogsOptions& o, int* status) {
  const backend::RunPlace place = PlaceOf(run);
  const backend::RunRecords* records = backend::RecordsOf(place);
  bool found = false;
  std::string err;
  if (!records) return false;
  backend::LineSplitter timed([](std::string_view line) {
    std::string shown;
    runs::WallClock::time_point at;
    if (runs::TakeTime(&line, &at)) shown = runs::Rfc3339(at) + " ";
    shown.append(line).append("\n");
    ShowChunk(shown);
  });
  const auto show = [&](std::string_view chunk) {
    if (!o.timestamps) return ShowChunk(chunk);
    timed.Feed(chunk);
    return true;
  };
  const bool ok = records->ReadLog(place, o.worker, o.follow, o.timestamps, show, &found, &err);
  timed.Finish();
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
  // The master's log is one file in the run's directory, the workers' a
  // directory: one follower reads both, merged in time order.
  std::vector<LogFollower::Source> sources;
  if (master || o.all) sources.push_back({run.dir, "master"});
  if (!master || o.all) sources.push_back({runs::WorkersDir(run.dir), o.all ? "" : o.worker});
  LogFollower logs(std::move(sources), [&](const std::string& id, const std::string& line, runs::WallClock::time_point at) {
    std::string shown;
    if (o.timestamps) shown += runs::Rfc3339(at) + " ";
    if (o.all) shown += "[" + id + "] ";
    shown += line;
    shown += '\n';
    std::fwrite(shown.data(), 1, shown.size(), stdout);
  });
  int status = 0;
  const bool in_file = ::access(runs::WorkerLogPath(run.dir, o.worker).c_str(), R_OK) == 0;
  // The engine's copy, while there is one; the file's when its lines' times
  // are asked for and it has them (fiber run's stamps, kept beside it).
  if (!master && !o.all && !(o.timestamps && in_file) && FromEngine(run, o, &status)) return status;
  if (!master && !o.all && !in_file) {
    Error("run " + run.id + " has no worker '" + o.worker + "'");
    return 1;
  }
  for (;;) {
    const bool running = RunStore::StateOf(run) == RunState::kRunning;
    logs.Poll();
    std::fflush(stdout);
    if (!o.follow || !running) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    std::string unused;
    (void)store.Find(run.id, &run, &unused);  // its status, once it ends
  }
  logs.Flush();
  std::fflush(stdout);
  if (!o.follow) return 0;
  // Followed to its end, as docker run ends: with the program's status.
  if (!run.exit_status) {
    Error("run " + run.id + " ended; how is not known");
    return 1;
  }
  std::fprintf(stderr, "fiber: run %s exited with status %d\n", run.id.c_str(), *run.exit_status);
  return *run.exit_status;
}

}  // namespace

void AddLogsCommand(CLI::App& app, int* status) {
  auto o = std::make_shared<LogsOptions>();
  CLI::App* logs = app.add_subcommand("logs", "show a run's output");
  logs->add_option("RUN", o->run, "run id, unique prefix of one, or name")->required();
  logs->add_flag("-f,--follow", o->follow, "follow until the run ends; exit with its exit status");
  auto* worker = logs->add_option("--worker", o->worker, "one worker's output (e.g. w3)");
  logs->add_flag("--all", o->all, "the master's and every worker's output, prefixed, in time order")->excludes(worker);
  logs->add_flag("-t,--timestamps", o->timestamps, "show when each line was written (RFC 3339, UTC)");
  logs->callback([=] { *status = Logs(*o); });
}

}  // namespace fiber::cli
