#include "settings_flags.hpp"

#include <unistd.h>

#include <cstdio>

#include "config/misspelt_variables.hpp"

namespace fiber::cli {

void SettingsFlags::AddTo(CLI::App& command) {
  for (const config::Setting& s : config::Table()) {
    const std::string key = s.key;
    command.add_option_function<std::string>(
        s.flag, [this, key](const std::string& value) { given[key] = value; }, s.description);
  }
  command.add_option("--config", config_file, "settings file to read instead of the nearest fiber.yaml");
}

bool SettingsFlags::Resolve(config::Resolved* out, std::string* err) const {
  for (const std::string& warning : config::MisspeltVariables(environ))
    std::fprintf(stderr, "fiber: warning: %s\n", warning.c_str());
  config::Inputs inputs;
  inputs.getenv = config::ProcessEnvironment;
  char cwd[4096];
  if (::getcwd(cwd, sizeof cwd)) inputs.cwd = cwd;
  inputs.config_file = config_file;
  inputs.flags = given;
  if (!config::Resolve(inputs, out, err)) return false;
  for (const std::string& line : out->refused) std::fprintf(stderr, "fiber: warning: %s\n", line.c_str());
  return true;
}

}  // namespace fiber::cli
