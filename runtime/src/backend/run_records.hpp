// What the command reads and removes of a run from its engine's own
// records (container and pod labels, Slurm job names and comments), also
// after the run's launcher or master crashed: the engine's records, not
// fiber's memory, say what a run has. fiber ps, logs, stop, rm and prune
// use RunRecords through RecordsOf (engine_adapter.hpp) and hold no engine
// switch. Implementations keep no state (each call reaches the engine
// anew): thread-safe.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/settings.hpp"
#include "os/exit_status.hpp"

namespace fiber::backend {

/// What fiber run recorded of a run that its engine's adapter needs to
/// find the run's engine and things again: plain data.
struct RunPlace {
  std::string id;
  std::string dir;  // the run's directory
  std::string backend;
  std::map<std::string, std::string> settings;  // resolved, by key, as files write them
  /// The variables that said where its engine was when it started
  /// (EngineEnvironment); nullopt for a run recorded before fiber kept
  /// them: this process's then.
  std::optional<std::map<std::string, std::string>> engine_env;
  /// The Slurm job of a master in the cluster (master: cluster), once
  /// submitted; a master's pod is found by its labels.
  std::string master_job;
  double grace_seconds = 0;  // how long a stop waits before it kills

  /// The setting key as the run recorded it; "" when it has none.
  std::string Setting(const std::string& key) const;
  /// Its recorded engine_env as a getenv; this process's without one.
  config::Getenv Getenv() const;
};

/// One of a run's workers, or its master (master: cluster), as its engine
/// records it.
struct WorkerRecord {
  enum class Phase { kPending, kRunning, kEnded };
  std::string worker_id;  // "w3"; kMasterRole (labels.hpp) for the master
  std::string where;      // the container's short id, the pod's name, the Slurm job
  std::string node;       // the node it runs on (a pod's, a Slurm job's); "" when none yet or not told
  Phase phase = Phase::kPending;
  std::string engine_state;  // in the engine's own word: "running", "Pending", "PENDING"
  /// Why it does not run yet, for the user ("not scheduled: 0/1 nodes are
  /// available: ..."); empty when nothing holds it up.
  std::string waiting;
  std::optional<ExitStatus> exit;  // how it ended, when the engine says
};

/// How fiber ps and logs name an engine's records: the --json field of
/// the list and of each record's fields, and the thing counted.
struct RecordWords {
  const char* list;   // "containers"
  const char* thing;  // "container": "2 containers", "from its container"
  const char* where;  // WorkerRecord::where's field: "id", "pod", "job"
  const char* state;  // WorkerRecord::engine_state's field: "state", "phase"
  bool waiting;       // whether WorkerRecord::waiting is a field
};

/// "2 containers", "1 pod": n of what, "" for none.
std::string Counted(int n, const char* what);

/// A run's workers by run id; a run whose engine cannot say has why in
/// errors instead.
struct RunsWorkers {
  std::map<std::string, std::vector<WorkerRecord>> workers;
  std::map<std::string, std::string> errors;
};

class RunRecords {
 public:
  virtual ~RunRecords() = default;
  virtual const RecordWords& words() const = 0;
  /// The variables that say where this engine or cluster is (DOCKER_HOST,
  /// KUBECONFIG, SLURM_CONF): fiber run records those set
  /// (EngineEnvironment, engine_adapter.hpp).
  virtual std::vector<const char*> variables() const = 0;
  /// The workers of each of runs (all of this engine) that fiber ps shows:
  /// asking each engine or cluster as few times as it can.
  virtual RunsWorkers List(const std::vector<RunPlace>& runs) const = 0;
  /// What an ended run left besides its workers ("its Secret holding the
  /// key", "2 key files"); false with *err when the engine cannot say.
  [[nodiscard]] virtual bool Leftovers(const RunPlace& run, std::vector<std::string>* out, std::string* err) const;
  /// Shows the log of worker_id as its engine keeps it (following it to
  /// its end with follow; with timestamps, each line begun with when the
  /// engine got it, RFC 3339 as the engine writes it, and a space:
  /// runs::TakeTime reads it); *found false when the engine has no such
  /// worker, whose log is then the copy in the run's directory. False with
  /// *err when the log could not be read.
  [[nodiscard]] virtual bool ReadLog(const RunPlace& run, const std::string& worker_id, bool follow, bool timestamps,
                                     const std::function<bool(std::string_view)>& show, bool* found,
                                     std::string* err) const;
  /// Removes (or cancels) every worker of the run, its output kept in the
  /// run's directory first, and whatever else of it the engine holds; how
  /// many workers in *removed. True when nothing was left or all of it went.
  [[nodiscard]] virtual bool Remove(const RunPlace& run, int* removed, std::string* err) const = 0;
};

}  // namespace fiber::backend
