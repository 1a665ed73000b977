// What fiber run runs and with what settings, decided from its options
// before anything starts: the program's words, the checks of --env, --grace
// and --output, the variables the program gets, the run's record. Pure
// functions of their arguments, so each is tested without a process
// (run_plan_test).
#pragma once

#include <string>
#include <vector>

#include "config/resolve.hpp"
#include "run_record.hpp"
#include "settings_flags.hpp"

namespace fiber::cli {

/// fiber run's words after its first "--": PROGRAM [ARGS...], whatever
/// they look like. main hands CLI11 only the words before it.
struct RunTail {
  bool given = false;  // a "--" followed fiber run
  std::vector<std::string> words;
};

/// Cuts fiber run's tail off argv; returns the argc CLI11 is to parse.
int CutRunTail(int argc, char** argv, RunTail* tail);

/// fiber run's own options, as CLI11 fills them.
struct RunOptions {
  SettingsFlags settings;
  std::vector<std::string> env;  // K=V
  std::string name;
  std::string output;  // --output: yaml, with --dry-run
  double grace_seconds = kDefaultGraceSeconds;
  bool detach = false, quiet = false, dry_run = false, build = false;
};

/// The program and its arguments: the words after "--", or those from the
/// first word CLI11 did not take as one of run's own (run.remaining(); a
/// "--" after that is the program's). False with *err for no program, or
/// for a word before PROGRAM that looks like an option and is not one of
/// run's (UnknownOption).
[[nodiscard]] bool ProgramCommand(const CLI::App& run, const RunTail& tail, std::vector<std::string>* command,
                                  std::string* err);

/// False with *err when an --env is not KEY=VALUE with KEY a variable name,
/// or --grace is not 0 to 86400 seconds.
[[nodiscard]] bool CheckRunOptions(const RunOptions& o, std::string* err);

/// False with *err unless --output is absent, or yaml with --dry-run.
[[nodiscard]] bool CheckOutput(const RunOptions& o, std::string* err);

/// --env reaches the workers too, on every backend: its names join
/// worker_env in *settings and in the flags the program is handed.
void JoinWorkerEnv(RunOptions* o, config::Settings* settings);

/// The program's environment (KEY=VALUE, sorted): environ's, the settings
/// the flags gave as the variables the runtime reads (so the program
/// resolves what we resolved), the run's own variables, and --env last.
std::vector<std::string> ProgramEnvironment(const RunOptions& o, const RunRecord& run, char** environ);

/// The record of a new run of command with these settings, as fiber run
/// creates it (its id, directory, engine's variables and processes still
/// to come).
RunRecord NewRunRecord(const RunOptions& o, const std::vector<std::string>& command,
                       const config::Settings& settings);

}  // namespace fiber::cli
