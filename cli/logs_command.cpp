// fiber logs [-f] [--worker ID | --all] RUN: the master's output, one
// worker's, or all of them prefixed; -f follows until the run ends. A worker
// whose container or pod is still there is read from the engine or the
// API server; one whose container or pod was removed, from the copy its
// removal left in the run's directory (backend/container/run_containers.hpp,
// backend/kubernetes/run_pods.hpp). A Slurm worker's log is its job's
// output file, to which the run's directory links (backend/slurm/).
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <thread>

#include "backend/kubernetes/run_pods.hpp"
#include "backend/labels.hpp"
#include "commands.hpp"
#include "log_follower.hpp"
#include "run_engine.hpp"
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

// The worker's log from its container, when it has one: true once shown
// (or on an error, said); false when there is no such container.
bool FromContainer(const RunRecord& run, const LogsOptions& o, int* status) {
  engine::Client engine;
  std::string err;
  std::vector<nlohmann::json> found;
  if (!RunsInContainers(run) || !ConnectRunEngine(run, &engine, &err) ||
      !engine.List({backend::LabelIs(backend::kRunLabel, run.id),
                    backend::LabelIs(backend::kWorkerLabel, o.worker)},
                   &found, &err) ||
      found.empty())
    return false;
  const std::string id = found.front().value("Id", "");
  const bool ok = o.follow ? engine.FollowLogs(id, ShowChunk, &err)
                           : engine.Logs(id, 0, [](std::string_view chunk) { ShowChunk(chunk); }, &err);
  if (!ok) Error("cannot read worker " + o.worker + "'s log from its container: " + err);
  *status = ok ? 0 : 1;
  return true;
}

// The same from the worker's pod, through the API's pod log endpoint.
bool FromPod(const RunRecord& run, const LogsOptions& o, int* status) {
  std::optional<kube::ApiClient> api;
  std::string err;
  std::vector<backend::RunPod> pods;
  if (!RunsOnKubernetes(run) || !ConnectRunCluster(run, &api, &err) ||
      !backend::ListRunPods(*api, run.id, &pods, &err))
    return false;
  const auto pod = std::find_if(pods.begin(), pods.end(),
                                [&](const backend::RunPod& p) { return p.state.worker_id == o.worker && !p.deleting; });
  if (pod == pods.end()) return false;
  kube::ApiError e;
  const bool ok = o.follow ? api->FollowPodLog(pod->name, backend::kWorkerRole, ShowChunk, nullptr, &e)
                           : api->PodLog(pod->name, backend::kWorkerRole, ShowChunk, &e);
  if (!ok) Error("cannot read worker " + o.worker + "'s log from its pod: " + e.message);
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
  if (!master && !o.all && (FromContainer(run, o, &status) || FromPod(run, o, &status))) return status;
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
