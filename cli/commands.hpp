// The subcommands of fiber, one file each. Each adds itself to the app; its
// callback runs when it was chosen and leaves the process's exit status in
// *status.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace fiber::cli {

struct RunTail;  // run_plan.hpp

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

}  // namespace fiber::cli
