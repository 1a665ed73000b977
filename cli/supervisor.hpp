// fiber run's one supervise loop: sees a run's master to its end, whether
// the program runs here (local_program.hpp) or on an engine
// (backend::MasterPlacement). It copies the master's output to ours and to
// the run's master log, shows its workers' logs on our stderr with their
// id, says once why it waits; the first Ctrl-C or SIGTERM stops it with
// the grace period, a second one (or the grace period running out) ends it
// and everything it started.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "backend/master_placement.hpp"

namespace fiber::cli {

/// fiber run's own exit statuses, in the manner of docker run.
enum LaunchStatus : int {
  kFiberError = 125,      // bad configuration or arguments, a failure of fiber
  kCannotExecute = 126,   // the program exists but cannot be run
  kNotFound = 127,        // no such program
};

struct SuperviseOptions {
  std::string run_dir;
  std::string program;  // as the user named it, for what is said of it
  std::chrono::milliseconds grace{10000};
  bool quiet = false;
  /// Detached: no terminal; the program's output goes to the master log.
  bool detached = false;
  /// The program runs on this machine: its control socket answers here
  /// (workers' progress, its numbers at a stop), and a signal that killed
  /// it unasked is said.
  bool here = false;
};

/// Starts the master; nullptr with *status and *err when it did not start.
using StartMaster = std::function<std::unique_ptr<backend::RunningMaster>(int* status, std::string* err)>;

/// Starts the master, with the stop signals taken first (so none ends fiber
/// run with the master started), and follows it until it ends; returns its
/// exit status (128+N when killed by signal N), or start's status with
/// *err when it did not start, or kFiberError with *err when it ended
/// unseen.
int Supervise(const StartMaster& start, const SuperviseOptions& options, std::string* err);

/// From now on SIGINT, SIGTERM and SIGHUP do not end this process but are
/// read from the descriptor returned (a non-blocking signalfd; -1 when it
/// cannot be made), and SIGPIPE is ignored: how fiber run stops its
/// program as it sees fit.
int TakeStopSignals();

}  // namespace fiber::cli
