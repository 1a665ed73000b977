#include "run_view.hpp"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <map>

#include "backend/engine_adapter.hpp"
#include "backend/labels.hpp"
#include "runs/control_protocol.hpp"
#include "runs/run_dir.hpp"
#include "run_store.hpp"

namespace fiber::cli {

long long Now() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

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

namespace {

// The numbers a running master answers with (master/control.hpp), and
// writes as it ends (runs::FinalNumbersPath).
constexpr const char* kMasterNumbers[] = {"workers_ready", "workers_wanted", "workers_started",
                                          "tasks_running", "tasks_queued",   "tasks_done",
                                          "tasks_failed", "manager_calls_via_master"};

std::string Age(long long created) {
  const long long s = std::max(0LL, Now() - created);
  if (s < 120) return std::to_string(s) + "s";
  if (s < 7200) return std::to_string(s / 60) + "m";
  if (s < 172800) return std::to_string(s / 3600) + "h";
  return std::to_string(s / 86400) + "d";
}

// The master's answer to request (runs::kControlStatus or kControlRunStatus) while the run
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

// request: what to ask a running master (runs::kControlRunStatus: all).
nlohmann::json DescribeWith(ControlClient& control, const RunRecord& r, const backend::RunsWorkers& placed,
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
          if (!w.node.empty()) item["node"] = w.node;
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
  const int version = numbers.value("version", 0);
  if (version > runs::kRunStatusVersion) {
    j["counts_unknown"] = "its master writes run-status version " + std::to_string(version) +
                          ", and this fiber reads up to version " + std::to_string(runs::kRunStatusVersion) +
                          ": use the fiber of the program's release";
    return j;
  }
  for (const char* key : kMasterNumbers)
    if (numbers.contains(key)) j[key] = numbers[key];
  // now: the running master's; end: those it wrote as it ended; stop:
  // those it had when fiber run forwarded the stop that ended it.
  j["counts_as_of"] = state == RunState::kRunning ? "now" : numbers.value("as_of", "end");
  // In full: the rest of the master's numbers, of the same moment (its
  // pools, its workers), beside the record's fields.
  if (request == runs::kControlRunStatus)
    for (auto& [key, value] : numbers.items())
      if (!j.contains(key) && key != "as_of") j[key] = value;
  return j;
}

}  // namespace

nlohmann::json Describe(ControlClient& control, const RunRecord& r, const backend::RunsWorkers& placed) {
  return DescribeWith(control, r, placed, runs::kControlStatus);
}

nlohmann::json DescribeInFull(ControlClient& control, const RunRecord& r, const backend::RunsWorkers& placed) {
  nlohmann::json row = DescribeWith(control, r, placed, runs::kControlRunStatus);
  // Until it ended; of a run whose launcher was killed, the end is unknown.
  row["elapsed"] = nullptr;
  if (r.ended || row["state"] == "running")
    row["elapsed"] = std::max(0LL, (r.ended ? r.ended : Now()) - r.created);
  const auto found = placed.workers.find(r.id);
  const std::vector<backend::WorkerRecord> none;
  const std::vector<backend::WorkerRecord>& records = found == placed.workers.end() ? none : found->second;
  if (row.contains("workers") && row["workers"].is_array()) {
    std::map<std::string, const backend::WorkerRecord*> by_id;
    for (const backend::WorkerRecord& w : records) by_id[w.worker_id] = &w;
    // Where each runs (and on which node) and why it waits, as its
    // engine says; a local worker runs on the master's host.
    for (auto& w : row["workers"]) {
      const auto record = by_id.find(w.value("id", ""));
      const bool known = record != by_id.end();
      w["where"] = known ? record->second->where : row.value("host", "");
      w["node"] = known ? record->second->node : row.value("host", "");
      w["waiting"] = known ? record->second->waiting : "";
    }
    row["workers_from"] = "master";
    return row;
  }
  row["workers"] = nullptr;  // null: no master to ask, and no engine records
  row["workers_from"] = nullptr;
  if (row["state"] != "running" && row["state"] != "unknown" && row["state"] != "master died") return row;
  const std::string why = row["counts_unknown"].is_string() ? row["counts_unknown"].get<std::string>() : "";
  const backend::RunRecords* engine = backend::RecordsOf(PlaceOf(r));
  if (!engine) {
    row["note"] = "its master does not answer (" + why + "); the " + r.backend +
                  " backend keeps no records of its workers outside the run's directory";
    return row;
  }
  if (const auto error = placed.errors.find(r.id); error != placed.errors.end()) {
    row["note"] = "its master does not answer (" + why + "), and its engine cannot list its workers: " +
                  error->second;
    return row;
  }
  nlohmann::json workers = nlohmann::json::array();
  for (const backend::WorkerRecord& w : records)
    workers.push_back({{"id", w.worker_id}, {"where", w.where}, {"node", w.node}, {"state", w.engine_state},
                       {"waiting", w.waiting}});
  row["workers"] = std::move(workers);
  row["workers_total"] = records.size();
  row["workers_from"] = "engine";
  row["note"] = "its master does not answer (" + why + "): its workers as its engine records them";
  return row;
}

}  // namespace fiber::cli
