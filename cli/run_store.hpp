// The launcher's view of runs: this user's runs directory, one directory
// per run holding its record (run_record.hpp), made, listed, found by id,
// unique id prefix or name, and removed; each run judged alive or not from
// the processes themselves, or for a program that runs as its master in the
// cluster (master: cluster), from the engine's record of it once its
// launcher is gone. Not thread-safe.
#pragma once

#include <string>
#include <vector>

#include "run_record.hpp"

namespace fiber::cli {

/// The runs directory of this user ($XDG_STATE_HOME/fiber/runs). When
/// there is none (no HOME, no home in the user database), says so and exits
/// 125: every command that asks has started nothing yet.
std::string RunsRoot();

/// kUnknown: a master in the cluster whose engine cannot say whether it runs.
enum class RunState { kRunning, kExited, kMasterDied, kUnknown };
const char* to_string(RunState state);

class RunStore {
 public:
  explicit RunStore(std::string root) : root_(std::move(root)) {}
  const std::string& root() const { return root_; }

  /// A new run's directory and record, with a fresh id; false with *err.
  [[nodiscard]] bool Create(RunRecord* record, std::string* err);
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

}  // namespace fiber::cli
