#include "run_record.hpp"

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "backend/engine_adapter.hpp"
#include "config/trusted_file.hpp"
#include "os/descriptor.hpp"
#include "os/whole_file.hpp"
#include "runs/run_dir.hpp"

namespace fiber::cli {

using nlohmann::json;

namespace {

bool WriteJson(const std::string& path, const json& value, std::string* err) {
  return runs::WriteWhole(path, value.dump(2) + "\n", err);
}

// A JSON file of a run's directory, judged by its descriptor first; a
// missing one is null. False with *why when it is not the user's alone.
bool ReadJson(int dir, const char* name, json* value, std::string* why) {
  const os::Descriptor fd(config::OpenTrustedFile(dir, name, ::geteuid(), why));
  const int error = errno;
  std::string text, unused;
  if (!fd) {
    if (error == ENOENT) return true;
    *why = std::string(name) + ": " + *why;
    return false;
  }
  *value = os::ReadWhole(fd.get(), &text, &unused) ? json::parse(text, nullptr, false) : json();
  return true;
}

}  // namespace

bool MasterInCluster(const RunRecord& run) {
  const auto master = run.settings.find("master");
  return master != run.settings.end() && master->second == "cluster";
}

backend::RunPlace PlaceOf(const RunRecord& run) {
  return {run.id, run.dir, run.backend, run.settings, run.engine_env, run.master_job, run.grace_seconds};
}

bool ReadRecord(int dir, const std::string& path, RunRecord* r, std::string* why) {
  json j, s;
  if (!ReadJson(dir, "run.json", &j, why) || !ReadJson(dir, "status.json", &s, why)) return false;
  if (j.is_discarded() || !j.is_object()) return false;
  try {
    r->id = j.at("id");
    r->name = j.value("name", "");
    r->dir = path;
    r->program = j.value("program", "");
    r->args = j.value("args", std::vector<std::string>{});
    r->backend = j.value("backend", "");
    r->settings = j.value("settings", std::map<std::string, std::string>{});
    if (j.contains("engine_env")) r->engine_env = j.at("engine_env").get<std::map<std::string, std::string>>();
    r->created = j.value("created", 0LL);
    r->created_ns = j.value("created_ns", 0LL);
    r->supervisor_pid = j.value("supervisor_pid", 0L);
    r->supervisor_start = j.value("supervisor_start", 0ULL);
    r->master_pid = j.value("master_pid", 0L);
    r->master_start = j.value("master_start", 0ULL);
    r->master_job = j.value("master_job", "");
    r->grace_seconds = j.value("grace_seconds", kDefaultGraceSeconds);
  } catch (const json::exception&) {
    return false;
  }
  if (s.is_object() && s.contains("exit_status") && s["exit_status"].is_number_integer())
    r->exit_status = s["exit_status"].get<int>();
  if (s.is_object() && s.contains("ended") && s["ended"].is_number_integer())
    r->ended = s["ended"].get<long long>();
  // A master in the cluster outlives its launcher: its engine says whether
  // it runs, never the missing local process.
  if (!r->exit_status && MasterInCluster(*r) && !SameProcess(r->supervisor_pid, r->supervisor_start)) {
    r->launcher_gone = true;
    const backend::RunPlace place = PlaceOf(*r);
    const backend::MasterPlacement* placement = backend::PlacementOf(place);
    std::optional<ExitStatus> exit;
    if (!placement) {
      r->master_unknown = "run " + r->id + " has no master in a cluster (" + r->backend + " backend)";
    } else if (!placement->State(place, &r->master_runs, &exit, &r->master_unknown)) {
      if (r->master_unknown.empty()) r->master_unknown = "its engine did not say why";
    } else if (exit) {
      r->exit_status = exit->code();
    }
  }
  return true;
}

bool SaveRecord(const RunRecord& r, std::string* err) {
  json record = {{"id", r.id},
                 {"name", r.name},
                 {"program", r.program},
                 {"args", r.args},
                 {"backend", r.backend},
                 {"settings", r.settings},
                 {"created", r.created},
                 {"created_ns", r.created_ns},
                 {"supervisor_pid", r.supervisor_pid},
                 {"supervisor_start", r.supervisor_start},
                 {"master_pid", r.master_pid},
                 {"master_start", r.master_start},
                 {"grace_seconds", r.grace_seconds}};
  if (!r.master_job.empty()) record["master_job"] = r.master_job;
  if (r.engine_env) record["engine_env"] = *r.engine_env;
  return WriteJson(runs::RecordPath(r.dir), record, err);
}

bool RecordEnd(const RunRecord& r, int exit_status, std::string* err) {
  const long long now = std::chrono::duration_cast<std::chrono::seconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
  return WriteJson(runs::StatusPath(r.dir), {{"exit_status", exit_status}, {"ended", now}}, err);
}

unsigned long long ProcessStart(long pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (pid <= 0 || !std::getline(in, line)) return 0;
  const auto close = line.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream rest(line.substr(close + 2));
  std::string field;
  // Fields 3 (state) to 21, then 22: starttime.
  for (int i = 3; i <= 22 && rest >> field; ++i)
    if (i == 3 && field == "Z") return 0;  // a zombie runs nothing
  return std::strtoull(field.c_str(), nullptr, 10);
}

bool SameProcess(long pid, unsigned long long start) {
  return pid > 0 && start != 0 && ProcessStart(pid) == start;
}

}  // namespace fiber::cli
