// The launcher's view of runs: each run's record (run.json) and final
// status (status.json) in its directory (runtime/src/runs/run_dir.hpp),
// found by id, unique id prefix or name, and judged alive or not from the
// processes themselves, or for a program that runs as its master in the
// cluster (master: cluster), from the engine's record of it once its
// launcher is gone. Not thread-safe.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "backend/run_records.hpp"

namespace fiber::cli {

/// How long a stop waits for the program before it kills it, unless fiber
/// run --grace says.
inline constexpr double kDefaultGraceSeconds = 10;

/// What fiber run records about a run when it starts it.
struct RunRecord {
  std::string id;
  std::string name;
  std::string dir;
  std::string program;
  std::vector<std::string> args;
  std::string backend;
  std::map<std::string, std::string> settings;  // resolved, by key, as files write them
  /// Where its engine or cluster was found (backend::EngineEnvironment): the variables
  /// set then; none recorded by a fiber older than this field.
  std::optional<std::map<std::string, std::string>> engine_env;
  long long created = 0;  // Unix seconds
  long long created_ns = 0;  // the same in nanoseconds: which of a second's runs is newer
  long supervisor_pid = 0;
  unsigned long long supervisor_start = 0;  // the launcher's start time (/proc), against pid reuse
  long master_pid = 0;
  unsigned long long master_start = 0;  // the master's start time (/proc), against pid reuse
  /// The Slurm job of a master in the cluster (master: cluster), once
  /// submitted; a master's pod is found by its labels.
  std::string master_job;
  double grace_seconds = kDefaultGraceSeconds;  // fiber run --grace
  std::optional<int> exit_status;       // from status.json, once it ended
  long long ended = 0;                  // from status.json: Unix seconds, once it ended

  // Read with the record, never saved: of a master in the cluster whose
  // launcher is gone without recording the end, what its engine says
  // (backend::MasterPlacement::State), exit_status too when it says how it ended.
  bool launcher_gone = false;
  bool master_runs = false;
  std::string master_unknown;  // why the engine cannot say; "" when it could
};

/// The runs directory of this user ($XDG_STATE_HOME/fiber/runs). When
/// there is none (no HOME, no home in the user database), says so and exits
/// 125: every command that asks has started nothing yet.
std::string RunsRoot();

/// Whether the run's program runs as its master in the cluster (master: cluster).
bool MasterInCluster(const RunRecord& run);

/// What the run's engine adapter needs of its record
/// (backend/engine_adapter.hpp).
backend::RunPlace PlaceOf(const RunRecord& run);

/// kUnknown: a master in the cluster whose engine cannot say whether it runs.
enum class RunState { kRunning, kExited, kMasterDied, kUnknown };
const char* to_string(RunState state);

class RunStore {
 public:
  explicit RunStore(std::string root) : root_(std::move(root)) {}
  const std::string& root() const { return root_; }

  /// A new run's directory and record, with a fresh id; false with *err.
  [[nodiscard]] bool Create(RunRecord* record, std::string* err);
  /// Writes the record again (after the master started).
  [[nodiscard]] bool Save(const RunRecord& record, std::string* err);
  /// Records how the run ended.
  [[nodiscard]] bool Finish(const RunRecord& record, int exit_status, std::string* err);

  /// Every run, oldest first (unreadable directories are skipped). A run
  /// whose directory or files are not the user's alone, or every run when
  /// the root or a directory above it is not (config/trusted_file.hpp), is
  /// refused: not read further, so never contacted, signalled or removed;
  /// the first List of this store says so on stderr, in one line naming
  /// each and why.
  std::vector<RunRecord> List() const;
  /// The run whose id is key, else the newest run named key (the newest
  /// running one when one runs), else the one run whose id starts with key;
  /// false with *err when none matches, or when several ids start with key
  /// (*err lists them).
  [[nodiscard]] bool Find(const std::string& key, RunRecord* record, std::string* err) const;
  /// Removes an ended run's directory; *bytes is the space it took.
  [[nodiscard]] bool Remove(const RunRecord& record, unsigned long long* bytes, std::string* err);
  /// Whether it still runs, judged from its processes and status, or its
  /// engine's record of a master in the cluster.
  static RunState StateOf(const RunRecord& record);

 private:
  std::string root_;
  mutable bool warned_ = false;
};

/// The start time of process pid (field 22 of /proc/PID/stat), or 0.
unsigned long long ProcessStart(long pid);
/// Whether pid is still the process that started at start: a pid the
/// system gave to another process since is not (nor is an unknown start).
bool SameProcess(long pid, unsigned long long start);

}  // namespace fiber::cli
