// Where an engine runs the program itself as the run's master (master:
// cluster): a pod or a Slurm job. fiber run starts it there (Start) and
// follows the RunningMaster to its end; ps and stop, once its launcher is
// gone, ask the engine's records (State, Stop). Found by PlacementOf
// (engine_adapter.hpp). Implementations keep no state: thread-safe.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backend/run_records.hpp"
#include "config/resolve.hpp"
#include "os/exit_status.hpp"

namespace fiber::backend {

/// What fiber run hands an engine to start its program as the run's master.
struct MasterLaunch {
  config::Resolved resolved;         // the run's settings, with its image (kubernetes)
  std::string run_id;
  std::string run_dir;
  std::vector<std::string> command;  // the program's absolute path (in the image), and its arguments
  std::vector<std::string> env;      // KEY=VALUE, from --env
  /// The program's whole environment (KEY=VALUE), for a master that
  /// inherits fiber run's own (a Slurm job).
  std::vector<std::string> program_env;
  std::chrono::milliseconds grace{10000};  // what a stop gives the program
};

/// A master's state as its launcher follows it.
struct MasterState {
  enum class Phase { kPending, kRunning, kEnded };
  Phase phase = Phase::kPending;
  std::string waiting;             // pending: why, in the engine's words; "" when it does not say
  std::optional<ExitStatus> exit;  // ended: how, unless error says why it cannot be known
  std::string error;               // ended: why the program never ran or ended unseen
  std::string trouble;             // the engine cannot be asked just now: why ("cannot watch ...")
};

/// How a launcher names a master in what it says: "the master runs in pod
/// P", "the master's pod P waits: ...".
struct MasterWords {
  std::string started;  // "the master runs as Slurm job 12"; "" to say nothing
  std::string name;     // "the master's job 12"
  std::string waits;    // "waits in Slurm's queue"
};

/// The program started as a run's master, followed by its launcher to its
/// end: the one thing fiber run's supervise loop drives, whether it runs
/// here (cli/local_program.hpp) or on an engine. Not thread-safe.
class RunningMaster {
 public:
  virtual ~RunningMaster() = default;
  virtual const MasterWords& words() const = 0;
  /// Its state after waiting up to timeout for news. Ended comes once its
  /// output has all been read or never will be.
  virtual MasterState Wait(std::chrono::milliseconds timeout) = 0;
  /// Has it stop with the run's grace period: signal to the program where
  /// it runs here, SIGTERM from the engine elsewhere (which kills it once
  /// the grace period is over). False with *err, a line to show.
  [[nodiscard]] virtual bool Stop(int signal, std::string* err) = 0;
  /// Ends it, and what it started, at once; false with *err, a line to show.
  [[nodiscard]] virtual bool Kill(std::string* err) = 0;
  /// Its output since the last call, which the launcher copies to out_fd
  /// (unless detached) and to the run's master log unless the engine
  /// writes that itself.
  virtual std::string TakeOutput() = 0;
  virtual int out_fd() const { return 1; }
  virtual bool engine_writes_master_log() const { return false; }
  /// The engine's id of it for the run's record (RunPlace::master_job):
  /// the Slurm job; "" where the run's id finds it.
  virtual std::string engine_id() const { return ""; }
  /// How long past its grace period the engine may take to end it.
  virtual std::chrono::milliseconds stop_slack() const { return {}; }
};

class MasterPlacement {
 public:
  virtual ~MasterPlacement() = default;
  /// Starts launch's program as the run's master on the engine; nullptr
  /// with *err when the engine would not take it. What it made of the run
  /// is removed with the run's workers (RunRecords::Remove).
  virtual std::unique_ptr<RunningMaster> Start(const MasterLaunch& launch, std::string* err) const = 0;
  /// What the engine records of the run's master: *runs while it runs or
  /// waits to; once it ended, *exit when the engine says how. False with
  /// *err when the engine cannot say.
  [[nodiscard]] virtual bool State(const RunPlace& run, bool* runs, std::optional<ExitStatus>* exit,
                                   std::string* err) const = 0;
  /// Has the engine stop the master as its launcher would have: SIGTERM to
  /// the program (the engine kills it after the run's grace period), or
  /// with force, at once.
  [[nodiscard]] virtual bool Stop(const RunPlace& run, bool force, std::string* err) const = 0;
};

}  // namespace fiber::backend
