// fiber: the launcher. Subcommands live one per file (commands.hpp); a
// failure of fiber itself (bad arguments, bad configuration) exits 125, so a
// script can tell it from the program's own status.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "commands.hpp"
#include "runs/run_dir.hpp"
#include "supervisor.hpp"

namespace fiber::cli {

void Error(const std::string& message) { std::fprintf(stderr, "fiber: error: %s\n", message.c_str()); }

std::string RunsRoot() {
  return runs::RunsRoot([](const char* name) -> const char* { return std::getenv(name); });
}

void SettingsFlags::AddTo(CLI::App& command) {
  for (const config::Setting& s : config::Table()) {
    const std::string key = s.key;
    command.add_option_function<std::string>(
        s.flag, [this, key](const std::string& value) { given[key] = value; }, s.description);
  }
  command.add_option("--config", config_file, "settings file to read instead of the nearest fiber.yaml");
}

bool SettingsFlags::Resolve(config::Resolved* out, std::string* err) const {
  config::Inputs inputs;
  inputs.getenv = [](const char* name) -> const char* { return std::getenv(name); };
  char cwd[4096];
  if (::getcwd(cwd, sizeof cwd)) inputs.cwd = cwd;
  inputs.config_file = config_file;
  inputs.flags = given;
  if (!config::Resolve(inputs, out, err)) return false;
  for (const std::string& line : out->refused) std::fprintf(stderr, "fiber: warning: %s\n", line.c_str());
  return true;
}

}  // namespace fiber::cli

int main(int argc, char** argv) {
  CLI::App app{"fiber: run a program's work on many processes, containers or pods", "fiber"};
  app.require_subcommand(1);
  int status = 0;
  fiber::cli::AddRunCommand(app, &status);
  fiber::cli::AddPsCommand(app, &status);
  fiber::cli::AddLogsCommand(app, &status);
  fiber::cli::AddStopCommand(app, &status);
  fiber::cli::AddConfigCommands(app, &status);
  fiber::cli::AddImageCommands(app, &status);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    fiber::cli::Error(e.what());
    return fiber::cli::kFiberError;
  }
  return status;
}
