// The subcommands of fiber, one file each. Each adds itself to the app; its
// callback runs when it was chosen and leaves the process's exit status in
// *status.
#pragma once

#include <CLI/CLI.hpp>
#include <map>
#include <string>

#include "config/resolve.hpp"

namespace fiber::cli {

void AddRunCommand(CLI::App& app, int* status);
void AddPsCommand(CLI::App& app, int* status);
void AddLogsCommand(CLI::App& app, int* status);
void AddStopCommand(CLI::App& app, int* status);
void AddConfigCommands(CLI::App& app, int* status);
void AddImageCommands(CLI::App& app, int* status);
void AddRmCommand(CLI::App& app, int* status);
void AddPruneCommand(CLI::App& app, int* status);

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

/// The runs directory of this user ($XDG_STATE_HOME/fiber/runs).
std::string RunsRoot();

}  // namespace fiber::cli
