// The settings as fiber run and fiber config show take them on the command
// line: one flag per row of the settings table, and --config; resolved as
// the program will resolve them.
#pragma once

#include <CLI/CLI.hpp>
#include <map>
#include <string>

#include "config/resolve.hpp"

namespace fiber::cli {

/// The settings flags (one per row of the settings table) and --config, as
/// run and config show take them.
struct SettingsFlags {
  std::map<std::string, std::string> given;  // by setting key
  std::string config_file;
  void AddTo(CLI::App& command);
  /// Resolves the settings as the program will; false with *err.
  [[nodiscard]] bool Resolve(config::Resolved* out, std::string* err) const;
};

}  // namespace fiber::cli
