// Runs a run's program as its master and sees it to the end. Its stdout is
// its own (inherited, never touched); its stderr goes to ours and to the
// run's master log; its workers' logs are shown on our stderr with their id;
// the first Ctrl-C or SIGTERM is forwarded to it, a second one (or the grace
// period running out) ends it and everything it started.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace fiber::cli {

/// fiber run's own exit statuses, in the manner of docker run.
enum LaunchStatus : int {
  kFiberError = 125,      // bad configuration or arguments, a failure of fiber
  kCannotExecute = 126,   // the program exists but cannot be run
  kNotFound = 127,        // no such program
};

struct Program {
  std::string path;               // as found (FindProgram)
  std::vector<std::string> argv;  // argv[0] as the user wrote it
  std::vector<std::string> env;   // the whole environment, KEY=VALUE
};

/// Finds name as a path (when it has a slash) or on search_path; false with
/// *status (kNotFound, kCannotExecute) and *err.
[[nodiscard]] bool FindProgram(const std::string& name, const std::string& search_path,
                               std::string* path, int* status, std::string* err);

struct SuperviseOptions {
  std::string run_dir;
  std::chrono::milliseconds grace{10000};
  bool quiet = false;
  /// Detached: no terminal; the program's output goes to the master log.
  bool detached = false;
  /// Called once the program runs, with its pid.
  std::function<void(long pid)> on_started;
};

/// Runs program until it ends; returns its exit status, 128+N when killed by
/// signal N, or kCannotExecute / kNotFound with *err when it did not start.
int Supervise(const Program& program, const SuperviseOptions& options, std::string* err);

/// From now on SIGINT, SIGTERM and SIGHUP (and SIGCHLD when with_children)
/// do not end this process but are read from the descriptor returned (a
/// non-blocking signalfd; -1 when it cannot be made), and SIGPIPE is
/// ignored: how fiber run stops its program as it sees fit.
int TakeStopSignals(bool with_children);

}  // namespace fiber::cli
