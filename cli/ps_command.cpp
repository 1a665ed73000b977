// fiber ps [-a] [--json] [RUN]: the runs of this user, from their records and
// processes, with live numbers from each running master, and the containers
// of container runs and the pods of Kubernetes runs as the engine or the
// cluster lists them by label, and the Slurm jobs of Slurm runs as squeue
// lists them by name (right after a crash of fiber run or the master too),
// with why pods and jobs wait; of a run that no longer runs, what it left
// there (its leftovers, which fiber stop and prune remove). With RUN, that
// one run in detail: its workers with their state and task, its tasks done,
// failed and queued; of a run that ended, the numbers its master wrote as
// it ended.
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <optional>
#include <nlohmann/json.hpp>

#include "backend/engine_adapter.hpp"
#include "backend/labels.hpp"
#include "commands.hpp"
#include "error_line.hpp"
#include "control_client.hpp"
#include "run_store.hpp"
#include "run_view.hpp"
#include "runs/control_protocol.hpp"
#include "top_view.hpp"
#include "runs/run_dir.hpp"
#include "wire/item_directory.hpp"

namespace fiber::cli {

namespace {

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

// Why pods or jobs wait, once per reason: "  w3, w4: not scheduled: 0/1 nodes are available: ...".
void PrintWaiting(const nlohmann::json& row) {
  std::map<std::string, std::string> waiting;
  for (const auto& p : Placed(row))
    if (!p.value("waiting", "").empty()) {
      std::string& who = waiting[p["waiting"].get<std::string>()];
      who += (who.empty() ? "" : ", ") + p.value("worker", "");
    }
  for (const auto& [why, who] : waiting) std::printf("  %s: %s\n", who.c_str(), why.c_str());
}

// Whether the run, no longer running, left something, or its master died
// and its engine cannot tell what it left.
bool Left(const nlohmann::json& row) {
  if (!row.contains("leftovers")) return false;
  return row["leftovers"].is_null() ? row["state"] == to_string(RunState::kMasterDied) : !row["leftovers"].empty();
}

// "  launcher gone: ..." for a master in the cluster that outlived it, or
// why its engine cannot say whether it runs.
void PrintLauncherGone(const nlohmann::json& row) {
  const std::string id = row["id"].get<std::string>();
  if (row["state"] == "running" && row["launcher_gone"] == true)
    std::printf("  launcher gone: its master still runs in the cluster; fiber stop %s ends it\n", id.c_str());
  if (row.contains("state_error"))
    std::printf("  cannot tell whether its master still runs in the cluster: %s\n",
                row["state_error"].get<std::string>().c_str());
}

// "  left behind: 2 pods, its Secret holding the key; fiber stop RUN or fiber prune removes them".
void PrintLeft(const nlohmann::json& row) {
  if (!Left(row)) return;
  const std::string id = row["id"].get<std::string>();
  if (row["leftovers"].is_null()) {
    std::printf("  cannot tell what it left: %s\n", row.value("leftovers_error", "").c_str());
    return;
  }
  std::string what;
  for (const auto& item : row["leftovers"]) what += (what.empty() ? "" : ", ") + item.get<std::string>();
  std::printf("  left behind: %s; fiber stop %s or fiber prune removes them\n", what.c_str(), id.c_str());
}

int Ps(bool all, bool json) {
  RunStore store(RunsRoot());
  ControlClient control;
  nlohmann::json rows = nlohmann::json::array();
  const std::vector<RunRecord> runs = store.List();
  const backend::RunsWorkers placed = ListWorkers(runs);
  for (const RunRecord& r : runs) {
    nlohmann::json row = Describe(control, r, placed);
    // A run that left something shows until it is removed, or while its
    // engine cannot say what it left.
    if (all || row["state"] == "running" || row["state"] == "unknown" || Left(row)) rows.push_back(std::move(row));
  }
  if (json) {
    std::printf("%s\n", rows.dump(2).c_str());
    return 0;
  }
  // TASKS says what its two numbers are; WORKERS reads as kubectl's READY.
  std::printf("%-12s  %-16s  %-8s  %-12s  %-9s  %-16s  %-5s  %s\n", "RUN ID", "NAME", "BACKEND",
              "STATE", "WORKERS", "TASKS RUN/QUEUED", "AGE", "EXIT");
  for (const auto& row : rows) {
    const std::string name = row["name"].get<std::string>().substr(0, 16);
    std::printf("%-12s  %-16s  %-8s  %-12s  %-9s  %-16s  %-5s  %s\n",
                row["id"].get<std::string>().c_str(), name.c_str(),
                row["backend"].get<std::string>().c_str(), row["state"].get<std::string>().c_str(),
                WorkersCell(row).c_str(),
                Cell(row["tasks_running"], row["tasks_queued"]).c_str(),
                row["age"].get<std::string>().c_str(),
                row["exit_status"].is_null() ? "" : row["exit_status"].dump().c_str());
    PrintWaiting(row);
    PrintLauncherGone(row);
    PrintLeft(row);
  }
  return 0;
}

// One run in detail: the list's fields, its elapsed seconds, and from a
// running master its workers, each with its state and task. The same
// fields and layout for a run that ended, with its final numbers.
int PsOne(const std::string& key, bool json) {
  RunStore store(RunsRoot());
  RunRecord r;
  std::string err;
  if (!store.Find(key, &r, &err)) {
    Error(err);
    return 1;
  }
  ControlClient control;
  const nlohmann::json row = DescribeInFull(control, r, ListWorkers({r}));
  if (json) {
    std::printf("%s\n", row.dump(2).c_str());
    return 0;
  }
  auto number = [&](const char* field) {
    return row[field].is_null() ? std::string("-") : row[field].dump();
  };
  std::printf("Run:      %s\n", r.id.c_str());
  std::printf("Name:     %s\n", r.name.c_str());
  std::printf("Program:  %s\n", r.program.c_str());
  std::printf("Backend:  %s\n", r.backend.c_str());
  std::printf("State:    %s%s%s\n", row["state"].get<std::string>().c_str(),
              row["state"] == "running" && r.launcher_gone ? " (launcher gone)" : "",
              r.exit_status ? (", exit status " + std::to_string(*r.exit_status)).c_str() : "");
  std::printf("Elapsed:  %s\n", row["elapsed"].is_null() ? "-" : Elapsed(row["elapsed"].get<long long>()).c_str());
  std::printf("Workers:  %s ready, %s wanted, %s started\n", number("workers_ready").c_str(),
              number("workers_wanted").c_str(), number("workers_started").c_str());
  std::printf("Tasks:    %s done, %s failed, %s running, %s queued\n", number("tasks_done").c_str(),
              number("tasks_failed").c_str(), number("tasks_running").c_str(), number("tasks_queued").c_str());
  // Workers call managers in one hop; the master forwards only the calls of
  // those that cannot reach a manager's own endpoint.
  if (row["manager_calls_via_master"].is_number())
    std::printf("Managers: %s calls from workers through the master (%s)\n",
                number("manager_calls_via_master").c_str(),
                row["manager_calls_via_master"] == 0 ? "any others in one hop" : "a fallback");
  if (row["counts_as_of"] == "stop")
    std::printf("          counts as of the stop, which ended the program before its master wrote its own\n");
  if (row["counts_unknown"].is_string())
    std::printf("          counts unknown: %s\n", row["counts_unknown"].get<std::string>().c_str());
  PrintWaiting(row);
  PrintLauncherGone(row);
  PrintLeft(row);
  // The same lines as fiber top --once.
  const std::vector<std::string> pools = PoolLines(row);
  if (!pools.empty()) std::printf("\n");
  for (const std::string& line : pools) std::printf("%s\n", line.c_str());
  const std::vector<std::string> workers = WorkerLines(row, WorkerOrder::kId, runs::kMostWorkersInStatus);
  if (!workers.empty()) std::printf("\n");
  for (const std::string& line : workers) std::printf("%s\n", line.c_str());
  return 0;
}

}  // namespace

void AddPsCommand(CLI::App& app, int* status) {
  auto all = std::make_shared<bool>(false);
  auto json = std::make_shared<bool>(false);
  auto run = std::make_shared<std::string>();
  CLI::App* ps = app.add_subcommand("ps", "list runs, or show one run's workers and tasks");
  ps->add_flag("-a,--all", *all, "also runs that have ended");
  ps->add_flag("--json", *json, "JSON, for scripts: an array of runs, or the one run's object");
  ps->add_option("RUN", *run, "show this run in detail: run id, unique prefix of one, or name");
  ps->callback([=] {
    wire::RemoveAbandonedItemDirectories();  // of masters gone, as run and prune do too
    *status = run->empty() ? Ps(*all, *json) : PsOne(*run, *json);
  });
}

}  // namespace fiber::cli
