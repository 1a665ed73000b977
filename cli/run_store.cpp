#include "run_store.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <tuple>

#include "config/trusted_file.hpp"
#include "error_line.hpp"
#include "os/descriptor.hpp"
#include "runs/run_dir.hpp"
#include "supervisor.hpp"

namespace fiber::cli {

namespace {

// The run directory `name` of the runs root (open as root), judged by its
// descriptor; none, with *why, when it is not the user's alone (why "" when
// it cannot be opened for another reason).
os::Descriptor OpenRunDir(int root, const char* name, std::string* why) {
  os::Descriptor dir(::openat(root, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW));
  struct stat st{};
  if (!dir || ::fstat(dir.get(), &st) != 0) {
    if (errno == ELOOP || errno == ENOTDIR) *why = "a symbolic link or not a directory";
    return {};
  }
  if (std::string reason = config::NotYoursAlone(st, ::geteuid()); !reason.empty()) {
    *why = std::move(reason);
    return {};
  }
  return dir;
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
  return SaveRecord(*record, err);
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
    const os::Descriptor dir = OpenRunDir(root.get(), e->d_name, &why);
    if (dir && ReadRecord(dir.get(), root_ + "/" + e->d_name, &r, &why))
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
