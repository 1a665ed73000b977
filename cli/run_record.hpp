// One run's record, in its directory (runtime/src/runs/run_dir.hpp): what
// fiber run started (run.json) and how it ended (status.json), its
// processes known by pid and start time against pid reuse, and, for a
// program that runs as its master in the cluster (master: cluster) whose
// launcher is gone, what its engine says of it. Written by fiber run and
// fiber stop, read by RunStore (run_store.hpp). Not thread-safe.
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

/// Whether the run's program runs as its master in the cluster (master: cluster).
bool MasterInCluster(const RunRecord& run);

/// What the run's engine adapter needs of its record
/// (backend/engine_adapter.hpp).
backend::RunPlace PlaceOf(const RunRecord& run);

/// Reads the record of the run directory dir (open, at path), each file
/// judged by its descriptor first; false with *why when one is not the
/// user's alone, with why "" when it holds none (a directory being made,
/// or not a run's).
[[nodiscard]] bool ReadRecord(int dir, const std::string& path, RunRecord* record, std::string* why);
/// Writes the record (run.json), again after the master started.
[[nodiscard]] bool SaveRecord(const RunRecord& record, std::string* err);
/// Records how the run ended (status.json).
[[nodiscard]] bool RecordEnd(const RunRecord& record, int exit_status, std::string* err);

/// The start time of process pid (field 22 of /proc/PID/stat), or 0.
unsigned long long ProcessStart(long pid);
/// Whether pid is still the process that started at start: a pid the
/// system gave to another process since is not (nor is an unknown start).
bool SameProcess(long pid, unsigned long long start);

}  // namespace fiber::cli
