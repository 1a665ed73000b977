// fiber ps [-a] [--json]: the runs of this user, from their records and
// processes, with live numbers from each running master, and the containers
// of container runs and the pods of Kubernetes runs as the engine or the
// cluster lists them by label, and the Slurm jobs of Slurm runs as squeue
// lists them by name (right after a crash of fiber run or the master too),
// with why pods and jobs wait.
#include <chrono>
#include <cstdio>
#include <map>
#include <optional>
#include <nlohmann/json.hpp>

#include "backend/container/run_containers.hpp"
#include "backend/kubernetes/run_pods.hpp"
#include "backend/labels.hpp"
#include "backend/slurm/run_jobs.hpp"
#include "commands.hpp"
#include "control_client.hpp"
#include "run_engine.hpp"
#include "run_store.hpp"

namespace fiber::cli {

namespace {

std::string Age(long long created) {
  const long long now = std::chrono::duration_cast<std::chrono::seconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
  const long long s = std::max(0LL, now - created);
  if (s < 120) return std::to_string(s) + "s";
  if (s < 7200) return std::to_string(s / 60) + "m";
  if (s < 172800) return std::to_string(s / 3600) + "h";
  return std::to_string(s / 86400) + "d";
}

using SlurmJobs = std::map<std::string, std::vector<backend::JobState>>;

// The jobs of the Slurm runs among runs, by run id, from one squeue;
// nullopt when squeue cannot say.
std::optional<SlurmJobs> ListSlurmJobs(const std::vector<RunRecord>& runs) {
  std::vector<std::string> ids;
  for (const RunRecord& r : runs)
    if (RunsOnSlurm(r)) ids.push_back(r.id);
  SlurmJobs jobs;
  std::string err;
  if (!backend::ListRunsJobs(ids, &jobs, &err)) return std::nullopt;
  return jobs;
}

// slurm_jobs: every Slurm run's jobs, or nullopt when squeue could not say.
nlohmann::json Describe(ControlClient& control, const RunRecord& r,
                        const std::optional<SlurmJobs>& slurm_jobs) {
  const RunState state = RunStore::StateOf(r);
  nlohmann::json j = {{"id", r.id},       {"name", r.name},   {"backend", r.backend},
                      {"state", to_string(state)}, {"program", r.program}, {"created", r.created},
                      {"age", Age(r.created)},     {"exit_status", nullptr},
                      {"workers_ready", nullptr},  {"workers_wanted", nullptr},
                      {"tasks_running", nullptr},  {"tasks_queued", nullptr}};
  if (r.exit_status) j["exit_status"] = *r.exit_status;
  std::string err;
  if (RunsInContainers(r)) {
    // [{"worker": "w1", "state": "running", "id": ...}], or null when the
    // engine cannot say.
    j["containers"] = nullptr;
    engine::Client engine;
    std::vector<backend::RunContainer> found;
    if (ConnectRunEngine(r, &engine, &err) && backend::ListRunContainers(engine, r.id, &found, &err)) {
      j["containers"] = nlohmann::json::array();
      for (const auto& c : found)
        j["containers"].push_back({{"worker", c.worker_id}, {"state", c.state}, {"id", c.id.substr(0, 12)}});
    }
  }
  if (RunsOnKubernetes(r)) {
    // [{"worker": "w1", "pod": ..., "phase": "Pending", "waiting": "not
    // scheduled: ..."}], or null when the cluster cannot say; the master's
    // pod (master: cluster) as worker "master".
    j["pods"] = nullptr;
    std::optional<kube::ApiClient> api;
    std::vector<backend::RunPod> pods;
    if (ConnectRunCluster(r, &api, &err) && backend::ListRunPods(*api, r.id, &pods, &err)) {
      j["pods"] = nlohmann::json::array();
      for (const auto& p : pods)
        j["pods"].push_back({{"worker", p.state.worker_id.empty() ? backend::kMasterRole : p.state.worker_id},
                             {"pod", p.name},
                             {"phase", p.state.phase},
                             {"waiting", p.state.waiting}});
    }
  }
  if (RunsOnSlurm(r)) {
    // [{"worker": "w1", "job": "12_1", "state": "PENDING", "waiting":
    // "Resources (...)"}], or null when squeue cannot say; the master's job
    // (master: cluster) as worker "master".
    j["jobs"] = nullptr;
    if (slurm_jobs) {
      j["jobs"] = nlohmann::json::array();
      const auto found = slurm_jobs->find(r.id);
      if (found != slurm_jobs->end())
        for (const auto& job : found->second)
          if (!job.ended || job.hopeless)
            j["jobs"].push_back({{"worker", job.master ? backend::kMasterRole : job.worker_id},
                                 {"job", job.job},
                                 {"state", job.state},
                                 {"waiting", job.waiting}});
    }
  }
  nlohmann::json status;
  if (state == RunState::kRunning && control.Query(r.dir, &status, &err)) {
    for (const char* key : {"workers_ready", "workers_wanted", "tasks_running", "tasks_queued"})
      if (status.contains(key)) j[key] = status[key];
  }
  return j;
}

std::string Cell(const nlohmann::json& a, const nlohmann::json& b) {
  if (a.is_null()) return "-";
  return a.dump() + "/" + (b.is_null() ? std::string("-") : b.dump());
}

// The run's containers, pods or Slurm jobs, as the engine, cluster or
// squeue lists them; null when it has none or they cannot be listed.
const nlohmann::json& Placed(const nlohmann::json& row) {
  static const nlohmann::json kNone;
  for (const char* key : {"containers", "pods", "jobs"})
    if (row.contains(key) && row[key].is_array()) return row[key];
  return kNone;
}

// Workers ready/wanted from the master; with no master to ask, the run's
// containers or pods that still run, as "N running".
std::string WorkersCell(const nlohmann::json& row) {
  if (!row["workers_ready"].is_null() || Placed(row).is_null())
    return Cell(row["workers_ready"], row["workers_wanted"]);
  int running = 0;
  for (const auto& c : Placed(row))
    running += c.value("worker", "") != backend::kMasterRole &&
               (c.value("state", "") == "running" || c.value("phase", "") == "Running" ||
                c.value("state", "") == "RUNNING");
  return std::to_string(running) + " running";
}

int Ps(bool all, bool json) {
  RunStore store(RunsRoot());
  ControlClient control;
  nlohmann::json rows = nlohmann::json::array();
  const std::vector<RunRecord> runs = store.List();
  const std::optional<SlurmJobs> slurm_jobs = ListSlurmJobs(runs);
  for (const RunRecord& r : runs) {
    nlohmann::json row = Describe(control, r, slurm_jobs);
    // A run whose containers or pods outlived it shows until they are removed.
    const bool containers_left = !Placed(row).is_null() && !Placed(row).empty();
    if (all || row["state"] == "running" || containers_left) rows.push_back(std::move(row));
  }
  if (json) {
    std::printf("%s\n", rows.dump(2).c_str());
    return 0;
  }
  std::printf("%-12s  %-16s  %-8s  %-12s  %-9s  %-9s  %-5s  %s\n", "RUN ID", "NAME", "BACKEND",
              "STATE", "WORKERS", "TASKS", "AGE", "EXIT");
  for (const auto& row : rows) {
    const std::string name = row["name"].get<std::string>().substr(0, 16);
    std::printf("%-12s  %-16s  %-8s  %-12s  %-9s  %-9s  %-5s  %s\n",
                row["id"].get<std::string>().c_str(), name.c_str(),
                row["backend"].get<std::string>().c_str(), row["state"].get<std::string>().c_str(),
                WorkersCell(row).c_str(),
                Cell(row["tasks_running"], row["tasks_queued"]).c_str(),
                row["age"].get<std::string>().c_str(),
                row["exit_status"].is_null() ? "" : row["exit_status"].dump().c_str());
    // Why pods or jobs wait, once per reason: "  w3, w4: not scheduled: 0/1 nodes are available: ...".
    std::map<std::string, std::string> waiting;
    for (const auto& p : Placed(row))
      if (!p.value("waiting", "").empty()) {
        std::string& who = waiting[p["waiting"].get<std::string>()];
        who += (who.empty() ? "" : ", ") + p.value("worker", "");
      }
    for (const auto& [why, who] : waiting) std::printf("  %s: %s\n", who.c_str(), why.c_str());
  }
  return 0;
}

}  // namespace

void AddPsCommand(CLI::App& app, int* status) {
  auto all = std::make_shared<bool>(false);
  auto json = std::make_shared<bool>(false);
  CLI::App* ps = app.add_subcommand("ps", "list runs and their workers");
  ps->add_flag("-a,--all", *all, "also runs that have ended");
  ps->add_flag("--json", *json, "a JSON array, for scripts");
  ps->callback([=] { *status = Ps(*all, *json); });
}

}  // namespace fiber::cli
