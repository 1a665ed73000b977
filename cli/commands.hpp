// The subcommands of fiber, one file each. Each adds itself to the app; its
// callback runs when it was chosen and leaves the process's exit status in
// *status.
#pragma once

#include <CLI/CLI.hpp>
#include <map>
#include <string>
#include <vector>

#include "config/resolve.hpp"

namespace fiber::cli {

/// fiber run's words after its first "--": PROGRAM [ARGS...], whatever
/// they look like. main hands CLI11 only the words before it.
struct RunTail {
  bool given = false;  // a "--" followed fiber run
  std::vector<std::string> words;
};
/// Cuts fiber run's tail off argv; returns the argc CLI11 is to parse.
int CutRunTail(int argc, char** argv, RunTail* tail);

void AddRunCommand(CLI::App& app, int* status, const RunTail* tail);
void AddPsCommand(CLI::App& app, int* status);
void AddTopCommand(CLI::App& app, int* status);
void AddLogsCommand(CLI::App& app, int* status);
void AddStopCommand(CLI::App& app, int* status);
void AddConfigCommand(CLI::App& app, int* status);
void AddInitCommand(CLI::App& app, int* status);
void AddImageCommands(CLI::App& app, int* status);
void AddRmCommand(CLI::App& app, int* status);
void AddPruneCommand(CLI::App& app, int* status);
void AddCompleteCommand(CLI::App& app, int* status);

/// What fiber --version prints: "fiber 0.1.0", the project's version in
/// meson.build.
inline constexpr const char* kVersionLine = "fiber " FIBER_VERSION;

/// One line on stderr, "fiber: error: ...".
void Error(const std::string& message);

/// The settings flags (one per row of the settings table) and --config, as
/// run and config show take them.
struct SettingsFlags {
  std::map<std::string, std::string> given;  // by setting key
  std::string config_file;
  void AddTo(CLI::App& command);
  /// Resolves the settings as the program will; false with *err.
  [[nodiscard]] bool Resolve(config::Resolved* out, std::string* err) const;
};

/// The runs directory of this user ($XDG_STATE_HOME/fiber/runs). When
/// there is none (no HOME, no home in the user database), says so and exits
/// 125: every command that asks has started nothing yet.
std::string RunsRoot();

}  // namespace fiber::cli
