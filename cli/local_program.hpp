// The program run here as its run's master (master: local, the default):
// a child process in its own process group, whose stdout is its own
// (inherited, never touched) and whose stderr fiber run copies to its own
// and to the run's master log (detached: both go to the log). A stop
// forwards the signal fiber run received; a kill ends its whole group.
// Not thread-safe.
#pragma once

#include <sys/types.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backend/master_placement.hpp"

namespace fiber::cli {

struct Program {
  std::string path;               // as found (FindProgram)
  std::vector<std::string> argv;  // argv[0] as the user wrote it
  std::vector<std::string> env;   // the whole environment, KEY=VALUE
};

/// Finds name as a path (when it has a slash) or on search_path; false with
/// *status (kNotFound, kCannotExecute) and *err.
[[nodiscard]] bool FindProgram(const std::string& name, const std::string& search_path,
                               std::string* path, int* status, std::string* err);

class LocalProgram : public backend::RunningMaster {
 public:
  /// Starts program, its output for the run_dir's master log; nullptr with
  /// *status (kCannotExecute, kNotFound, kFiberError) and *err when it
  /// did not start. With terminal (fiber run's stdout and stderr on one
  /// terminal, its progress line there), its stdout and stderr are a
  /// terminal of ours, whose output fiber run writes between redraws of
  /// that line; otherwise its stdout is fiber run's own.
  static std::unique_ptr<LocalProgram> Start(const Program& program, const std::string& run_dir, bool detached,
                                             bool terminal, int* status, std::string* err);
  /// Whether descriptors a and b are one terminal.
  static bool SameTerminal(int a, int b);
  ~LocalProgram() override;
  pid_t pid() const { return pid_; }

  const backend::MasterWords& words() const override;
  backend::MasterState Wait(std::chrono::milliseconds timeout) override;
  [[nodiscard]] bool Stop(int signal, std::string* err) override;
  [[nodiscard]] bool Kill(std::string* err) override;
  std::string TakeOutput() override;
  int out_fd() const override { return 2; }  // its stderr's copy (and its stdout's, on a terminal of ours)

 private:
  LocalProgram(pid_t pid, int out) : pid_(pid), out_(out) {}

  const pid_t pid_;
  int out_;  // the read end of its stderr; -1 once closed (or detached)
  std::optional<ExitStatus> exit_;
  std::string output_;  // read, not yet taken
};

}  // namespace fiber::cli
