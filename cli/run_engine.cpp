#include "run_engine.hpp"

#include <cstdlib>

#include "backend/container/container_backend.hpp"
#include "backend/container/run_containers.hpp"
#include "backend/kubernetes/run_pods.hpp"
#include "backend/slurm/run_jobs.hpp"
#include "backend/slurm/slurm_command.hpp"
#include "config/setting_table.hpp"
#include "engine/engine_socket.hpp"
#include "kube/kubeconfig.hpp"
#include "kube/manifest.hpp"
#include "runs/run_dir.hpp"

namespace fiber::cli {

namespace {

std::string SettingOf(const RunRecord& run, const std::string& key) {
  const auto it = run.settings.find(key);
  return it == run.settings.end() ? "" : it->second;
}

// The run's recorded environment for where its engine is; this process's
// for a run recorded before fiber kept it.
config::Getenv GetenvOf(const RunRecord& run) {
  if (!run.engine_env) return [](const char* name) -> const char* { return std::getenv(name); };
  return [&run](const char* name) -> const char* {
    const auto it = run.engine_env->find(name);
    return it == run.engine_env->end() ? nullptr : it->second.c_str();
  };
}

std::string EngineOfRun(const RunRecord& run) {
  return backend::EngineOf(run.backend, SettingOf(run, "engine"));
}

}  // namespace

std::string Counted(int n, const char* what) {
  return n == 0 ? "" : std::to_string(n) + " " + what + (n == 1 ? "" : "s");
}

bool RunsInContainers(const RunRecord& run) { return !EngineOfRun(run).empty(); }
bool RunsOnKubernetes(const RunRecord& run) { return run.backend == "kubernetes"; }
bool RunsOnSlurm(const RunRecord& run) { return run.backend == "slurm"; }

std::map<std::string, std::string> EngineEnvironment(const config::Getenv& getenv) {
  std::map<std::string, std::string> env;
  const auto keep = [&](const char* name) {
    if (const char* value = getenv(name)) env[name] = value;
  };
  for (const char* name : engine::kSocketVariables) keep(name);
  for (const char* name : kube::kSearchVariables) keep(name);
  for (const char* name : backend::kSlurmVariables) keep(name);
  return env;
}

std::vector<std::string> SlurmEnvOf(const RunRecord& run) {
  std::vector<std::string> env;
  if (run.engine_env)
    for (const char* name : backend::kSlurmVariables)
      if (const auto it = run.engine_env->find(name); it != run.engine_env->end())
        env.push_back(std::string(name) + "=" + it->second);
  return env;
}

std::string SlurmClusterOf(const RunRecord& run) {
  std::string names;
  for (const std::string& entry : SlurmEnvOf(run)) names += (names.empty() ? "" : " ") + entry;
  return names.empty() ? "this machine's Slurm cluster" : "the Slurm cluster of " + names;
}

bool ConnectRunEngine(const RunRecord& run, engine::Client* out, std::string* err) {
  const std::string engine = EngineOfRun(run);
  if (engine.empty()) {
    *err = "run " + run.id + " runs no containers (" + run.backend + " backend)";
    return false;
  }
  return engine::Client::Connect(engine, GetenvOf(run), out, err);
}

bool ConnectRunCluster(const RunRecord& run, std::optional<kube::ApiClient>* out, std::string* err) {
  // The run's own settings: the cluster it used, whatever this shell says.
  config::Settings settings;
  for (const char* key : {"kubeconfig", "context", "namespace"}) {
    const std::string value = SettingOf(run, key);
    std::string unused;
    if (!value.empty()) (void)config::FindSetting(key)->kind.parse(value, &settings, &unused);
  }
  return backend::ConnectCluster(settings, out, err, GetenvOf(run));
}

bool ClusterMasterState(const RunRecord& run, bool* runs, std::optional<int>* exit_status, std::string* err) {
  *runs = false;
  if (RunsOnKubernetes(run)) {
    std::optional<kube::ApiClient> api;
    std::vector<backend::RunPod> pods;
    if (!ConnectRunCluster(run, &api, err) || !backend::ListRunPods(*api, run.id, &pods, err)) return false;
    for (const backend::RunPod& pod : pods) {
      if (!pod.state.worker_id.empty()) continue;  // a worker's
      *runs = !pod.state.ended;
      if (pod.state.exit_code >= 0) *exit_status = static_cast<int>(pod.state.exit_code);
    }
    return true;
  }
  if (RunsOnSlurm(run)) {
    std::vector<backend::JobState> jobs;
    if (!backend::ListRunJobs(run.id, &jobs, err, SlurmEnvOf(run))) {
      *err = SlurmClusterOf(run) + ": " + *err;
      return false;
    }
    for (const backend::JobState& job : jobs) {
      if (!job.master || run.master_job.empty() || job.job != run.master_job) continue;
      *runs = !job.ended;
      if (job.ended) *exit_status = backend::ExitStatusOf(job);
    }
    return true;
  }
  *err = "run " + run.id + " has no master in a cluster (" + run.backend + " backend)";
  return false;
}

bool StopClusterMaster(const RunRecord& run, bool force, std::string* err) {
  if (RunsOnKubernetes(run)) {
    std::optional<kube::ApiClient> api;
    if (!ConnectRunCluster(run, &api, err)) return false;
    kube::ApiError e;
    const long grace = force ? 0 : static_cast<long>(run.grace_seconds);
    if (api->Delete(kube::kPods, kube::MasterPodName(run.id), &e, grace) || e.kind == kube::ApiErrorKind::kNotFound)
      return true;
    *err = e.message;
    return false;
  }
  if (RunsOnSlurm(run) && !run.master_job.empty()) {
    if (backend::CancelJobs({run.master_job}, err, SlurmEnvOf(run), !force)) return true;
    *err = SlurmClusterOf(run) + ": " + *err;
    return false;
  }
  *err = "run " + run.id + " has no master in a cluster to stop";
  return false;
}

bool RemoveRunWorkers(const RunRecord& run, std::string* removed, std::string* err) {
  removed->clear();
  int n = 0;
  if (RunsInContainers(run)) {
    engine::Client engine;
    const bool ok = ConnectRunEngine(run, &engine, err) &&
                    backend::RemoveRunContainers(engine, run.id, run.dir, &n, err);
    *removed = Counted(n, "container");
    return ok;
  }
  if (RunsOnKubernetes(run)) {
    std::optional<kube::ApiClient> api;
    const bool ok = ConnectRunCluster(run, &api, err) && backend::RemoveRun(*api, run.id, run.dir, &n, err);
    *removed = Counted(n, "pod");
    return ok;
  }
  if (RunsOnSlurm(run)) {
    const bool ok = backend::CancelRun(run.id, run.dir.empty() ? "" : runs::SlurmDir(run.dir), &n, err,
                                       SlurmEnvOf(run));
    if (!ok) *err = SlurmClusterOf(run) + ": " + *err;
    *removed = Counted(n, "Slurm job");
    return ok;
  }
  return true;
}

}  // namespace fiber::cli
