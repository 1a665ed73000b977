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
#include "control_client.hpp"
#include "run_store.hpp"
#include "runs/control_protocol.hpp"
#include "runs/run_dir.hpp"

namespace fiber::cli {

namespace {

// The numbers a running master answers with (master/control.hpp), and
// writes as it ends (runs::FinalNumbersPath).
constexpr const char* kMasterNumbers[] = {"workers_ready", "workers_wanted", "workers_started",
                                          "tasks_running", "tasks_queued",   "tasks_done",
                                          "tasks_failed", "manager_calls_via_master"};

long long Now() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string Age(long long created) {
  const long long s = std::max(0LL, Now() - created);
  if (s < 120) return std::to_string(s) + "s";
  if (s < 7200) return std::to_string(s / 60) + "m";
  if (s < 172800) return std::to_string(s / 3600) + "h";
  return std::to_string(s / 86400) + "d";
}

// Every run's workers as its engine records them, asking each engine once
// for all its runs (one squeue per Slurm cluster however many runs).
backend::RunsWorkers ListWorkers(const std::vector<RunRecord>& runs) {
  std::map<const backend::RunRecords*, std::vector<backend::RunPlace>> by_engine;
  for (const RunRecord& r : runs) {
    backend::RunPlace place = PlaceOf(r);
    if (const backend::RunRecords* records = backend::RecordsOf(place))
      by_engine[records].push_back(std::move(place));
  }
  backend::RunsWorkers all;
  for (const auto& [records, places] : by_engine) {
    backend::RunsWorkers found = records->List(places);
    all.workers.merge(found.workers);
    all.errors.merge(found.errors);
  }
  return all;
}

// The master's answer to request (runs::kControlStatus or kControlDetail) while the run
// runs, or the numbers it wrote as it ended; false with *unknown saying
// why there are none.
bool MasterNumbers(ControlClient& control, const RunRecord& r, RunState state,
                   const std::string& request, nlohmann::json* numbers, std::string* unknown) {
  if (state == RunState::kRunning) return control.Query(r.dir, request, numbers, unknown);
  std::ifstream in(runs::FinalNumbersPath(r.dir));
  *numbers = nlohmann::json::parse(in, nullptr, false);
  if (numbers->is_object()) return true;
  // Without status.json the launcher did not see the end: it was killed
  // (its program dies with it), and no running numbers are the final ones.
  // A master in a pod (master: cluster) has no run directory to write to.
  *unknown = state == RunState::kMasterDied ? "the launcher was killed"
             : MasterInCluster(r) ? "its master ran in the cluster and left none here"
                 : "the program ended without its master writing them (killed, or it made no pool)";
  return false;
}

// placed: the runs' workers as their engines record them (ListWorkers);
// request: what to ask a running master (runs::kControlDetail adds its workers).
nlohmann::json Describe(ControlClient& control, const RunRecord& r, const backend::RunsWorkers& placed,
                        const std::string& request) {
  const RunState state = RunStore::StateOf(r);
  nlohmann::json j = {{"id", r.id},       {"name", r.name},   {"backend", r.backend},
                      {"state", to_string(state)}, {"program", r.program}, {"created", r.created},
                      {"age", Age(r.created)},     {"exit_status", nullptr},
                      {"counts_as_of", nullptr},   {"counts_unknown", nullptr},
                      // A master in the cluster outlived its launcher (killed):
                      // its engine says how it stands.
                      {"launcher_gone", r.launcher_gone}};
  if (state == RunState::kUnknown) j["state_error"] = r.master_unknown;
  for (const char* key : kMasterNumbers) j[key] = nullptr;
  if (r.exit_status) j["exit_status"] = *r.exit_status;
  std::string err;
  // What a run that no longer runs left, for fiber stop and prune to
  // remove ("2 pods", "its Secret holding the key"); null when its engine
  // cannot say, with why in leftovers_error.
  std::vector<std::string> left;
  std::string unknown;  // why the engine cannot say what the run left
  const auto leave = [&](const std::string& what) {
    if (!what.empty()) left.push_back(what);
  };
  // Its containers, pods or Slurm jobs as the engine lists them, under
  // the engine's own words: [{"worker": "w1", "state": "running", "id":
  // ...}], [{"worker": "w1", "pod": ..., "phase": "Pending", "waiting":
  // "not scheduled: ..."}], [{"worker": "w1", "job": "12_1", "state":
  // "PENDING", "waiting": "Resources (...)"}]; null when the engine cannot
  // say. A master in the cluster is worker "master".
  const backend::RunPlace place = PlaceOf(r);
  if (const backend::RunRecords* records = backend::RecordsOf(place)) {
    const backend::RecordWords& words = records->words();
    j[words.list] = nullptr;
    if (const auto why = placed.errors.find(r.id); why != placed.errors.end()) {
      unknown = why->second;
    } else {
      nlohmann::json& list = j[words.list] = nlohmann::json::array();
      if (const auto found = placed.workers.find(r.id); found != placed.workers.end())
        for (const backend::WorkerRecord& w : found->second) {
          nlohmann::json item = {{"worker", w.worker_id}, {words.where, w.where}, {words.state, w.engine_state}};
          if (words.waiting) item["waiting"] = w.waiting;
          list.push_back(std::move(item));
        }
      leave(backend::Counted(static_cast<int>(list.size()), words.thing));
      std::vector<std::string> more;
      if (state != RunState::kRunning && state != RunState::kUnknown && !records->Leftovers(place, &more, &err))
        unknown = err;
      for (const std::string& what : more) leave(what);
    }
  }
  if (state != RunState::kRunning && state != RunState::kUnknown) {
    j["leftovers"] = unknown.empty() ? nlohmann::json(left) : nlohmann::json();
    if (!unknown.empty()) j["leftovers_error"] = unknown;
  }
  nlohmann::json numbers;
  std::string counts_unknown;
  if (!MasterNumbers(control, r, state, request, &numbers, &counts_unknown)) {
    j["counts_unknown"] = counts_unknown;
    return j;
  }
  for (const char* key : kMasterNumbers)
    if (numbers.contains(key)) j[key] = numbers[key];
  // now: the running master's; end: those it wrote as it ended; stop:
  // those it had when fiber run forwarded the stop that ended it.
  j["counts_as_of"] = state == RunState::kRunning ? "now" : numbers.value("as_of", "end");
  if (numbers.contains("workers") && numbers["workers"].is_array()) {
    // The workers of the same moment as the numbers.
    j["workers"] = numbers["workers"];
    j["workers_total"] = numbers.value("workers_total", numbers["workers"].size());
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
    nlohmann::json row = Describe(control, r, placed, runs::kControlStatus);
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

// "1h 02m 03s", "4m 05s", "6s".
std::string Elapsed(long long s) {
  char text[48];
  if (s >= 3600)
    std::snprintf(text, sizeof text, "%lldh %02lldm %02llds", s / 3600, s / 60 % 60, s % 60);
  else if (s >= 60)
    std::snprintf(text, sizeof text, "%lldm %02llds", s / 60, s % 60);
  else
    std::snprintf(text, sizeof text, "%llds", s);
  return text;
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
  nlohmann::json row = Describe(control, r, ListWorkers({r}), runs::kControlDetail);
  // Until it ended; of a run whose launcher was killed, the end is unknown.
  row["elapsed"] = nullptr;
  if (r.ended || row["state"] == "running")
    row["elapsed"] = std::max(0LL, (r.ended ? r.ended : Now()) - r.created);
  if (!row.contains("workers")) row["workers"] = nullptr;  // null: no master to ask
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
  if (!row["workers"].is_array()) return 0;
  std::printf("\n%-10s  %-8s  %-8s  %s\n", "WORKER", "PID", "STATE", "TASK");
  for (const auto& w : row["workers"]) {
    const std::string task = w.value("task", "");
    std::printf("%-10s  %-8s  %-8s  %s\n", w.value("id", "").c_str(),
                w.value("pid", 0L) > 0 ? std::to_string(w.value("pid", 0L)).c_str() : "-",
                w.value("state", "").c_str(), task.empty() ? "-" : task.c_str());
  }
  const std::size_t total = row.value("workers_total", std::size_t{0});
  if (total > row["workers"].size())
    std::printf("(and %zu more)\n", total - row["workers"].size());
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
  ps->callback([=] { *status = run->empty() ? Ps(*all, *json) : PsOne(*run, *json); });
}

}  // namespace fiber::cli
