#include "run_store.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <tuple>

#include "backend/engine_adapter.hpp"
#include "config/trusted_file.hpp"
#include "error_line.hpp"
#include "os/descriptor.hpp"
#include "os/whole_file.hpp"
#include "runs/run_dir.hpp"
#include "supervisor.hpp"

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

// The record of the run directory `name` of the runs root (open as root);
// false with *why when it is not the user's alone, "" when it holds none
// (a directory being made, or not a run's).
bool ReadRecord(int root, const std::string& root_path, const std::string& name, RunRecord* r,
                std::string* why) {
  const os::Descriptor dir(::openat(root, name.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW));
  struct stat st{};
  if (!dir || ::fstat(dir.get(), &st) != 0) {
    if (errno == ELOOP || errno == ENOTDIR) *why = "a symbolic link or not a directory";
    return false;
  }
  if (std::string reason = config::NotYoursAlone(st, ::geteuid()); !reason.empty()) {
    *why = std::move(reason);
    return false;
  }
  json j, s;
  if (!ReadJson(dir.get(), "run.json", &j, why) || !ReadJson(dir.get(), "status.json", &s, why)) return false;
  if (j.is_discarded() || !j.is_object()) return false;
  const std::string path = root_path + "/" + name;
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

}  // namespace

std::string RunsRoot() {
  std::string root, err;
  if (runs::RunsRoot(config::ProcessEnvironment, &root, &err)) return root;
  Error(err);
  std::exit(kFiberError);
}

const char* to_string(RunState state) {
  switch (state) {
    case RunState::kRunning: return "running";
    case RunState::kExited: return "exited";
    case RunState::kMasterDied: return "master died";
    case RunState::kUnknown: return "unknown";
  }
  return "unknown";
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

backend::RunPlace PlaceOf(const RunRecord& run) {
  return {run.id, run.dir, run.backend, run.settings, run.engine_env, run.master_job, run.grace_seconds};
}

bool MasterInCluster(const RunRecord& run) {
  const auto master = run.settings.find("master");
  return master != run.settings.end() && master->second == "cluster";
}

bool SameProcess(long pid, unsigned long long start) {
  return pid > 0 && start != 0 && ProcessStart(pid) == start;
}

bool RunStore::Create(RunRecord* record, std::string* err) {
  if (!runs::MakePrivateDirs(root_, err)) return false;
  for (int attempt = 0; attempt < 10; ++attempt) {
    record->id = runs::NewRunId();
    record->dir = root_ + "/" + record->id;
    if (::mkdir(record->dir.c_str(), 0700) == 0) break;
    if (errno != EEXIST) {
      *err = "cannot make " + record->dir + ": " + std::strerror(errno);
      return false;
    }
  }
  if (!runs::MakePrivateDirs(runs::WorkersDir(record->dir), err)) return false;
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  record->created = std::chrono::duration_cast<std::chrono::seconds>(now).count();
  record->created_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(now).count();
  if (record->name.empty()) record->name = record->id;
  return Save(*record, err);
}

bool RunStore::Save(const RunRecord& r, std::string* err) {
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

bool RunStore::Finish(const RunRecord& r, int exit_status, std::string* err) {
  const long long now = std::chrono::duration_cast<std::chrono::seconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
  return WriteJson(runs::StatusPath(r.dir), {{"exit_status", exit_status}, {"ended", now}}, err);
}

std::vector<RunRecord> RunStore::List() const {
  std::vector<RunRecord> runs;
  std::vector<std::string> refused;
  std::string why;
  const os::Descriptor root(config::OpenTrustedDirectory(root_, ::geteuid(), false, &why));
  if (!root && errno != ENOENT) refused.push_back(why);
  // fdopendir takes the descriptor it reads: a copy of it.
  DIR* d = root ? ::fdopendir(::fcntl(root.get(), F_DUPFD_CLOEXEC, 0)) : nullptr;
  while (const dirent* e = d ? ::readdir(d) : nullptr) {
    if (e->d_name[0] == '.') continue;
    RunRecord r;
    why.clear();
    if (ReadRecord(root.get(), root_, e->d_name, &r, &why))
      runs.push_back(std::move(r));
    else if (!why.empty())
      refused.push_back(root_ + "/" + e->d_name + " (" + why + ")");
  }
  if (d) ::closedir(d);
  std::sort(runs.begin(), runs.end(), [](const RunRecord& a, const RunRecord& b) {
    return std::tie(a.created, a.created_ns, a.id) < std::tie(b.created, b.created_ns, b.id);
  });
  if (!refused.empty() && !warned_) {
    warned_ = true;
    std::string line;
    for (const std::string& one : refused) line += (line.empty() ? "" : "; ") + one;
    std::fprintf(stderr, "fiber: warning: not reading runs another user could have written: %s\n", line.c_str());
  }
  return runs;
}

bool RunStore::Find(const std::string& key, RunRecord* record, std::string* err) const {
  const std::vector<RunRecord> runs = List();  // oldest first
  const RunRecord* named = nullptr;
  std::vector<const RunRecord*> prefixed;
  for (const RunRecord& r : runs) {
    if (r.id == key) {
      *record = r;
      return true;
    }
    // A name means its newest run, the running one when there is one: a
    // name reused after its run ended names the new run.
    if (r.name == key && (!named || StateOf(r) == RunState::kRunning ||
                          StateOf(*named) != RunState::kRunning))
      named = &r;
    if (!key.empty() && r.id.rfind(key, 0) == 0) prefixed.push_back(&r);
  }
  if (named) {
    *record = *named;
    return true;
  }
  if (prefixed.size() == 1) {
    *record = *prefixed[0];
    return true;
  }
  if (prefixed.empty()) {
    *err = "no run has the id or name '" + key + "' (see fiber ps -a)";
    return false;
  }
  *err = "'" + key + "' is the start of " + std::to_string(prefixed.size()) +
         " run ids; give more of it:";
  for (const RunRecord* r : prefixed)
    *err += "\n  " + r->id + "  " + r->name + "  " + to_string(StateOf(*r));
  return false;
}

bool RunStore::Remove(const RunRecord& r, unsigned long long* bytes, std::string* err) {
  namespace fs = std::filesystem;
  *bytes = 0;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(r.dir, ec); !ec && it != fs::end(it); it.increment(ec))
    if (it->is_regular_file(ec) && !it->is_symlink(ec)) *bytes += it->file_size(ec);
  ec.clear();
  fs::remove_all(r.dir, ec);
  if (ec) {
    *err = "cannot remove " + r.dir + ": " + ec.message();
    return false;
  }
  return true;
}

RunState RunStore::StateOf(const RunRecord& r) {
  if (r.master_runs) return RunState::kRunning;
  if (!r.master_unknown.empty()) return RunState::kUnknown;
  if (r.exit_status) return RunState::kExited;
  // A live launcher is starting the master, or recording how it ended.
  if (SameProcess(r.master_pid, r.master_start) || SameProcess(r.supervisor_pid, r.supervisor_start))
    return RunState::kRunning;
  return RunState::kMasterDied;
}

}  // namespace fiber::cli
