// fiber: the launcher. Subcommands live one per file (commands.hpp); a
// failure of fiber itself (bad arguments, bad configuration) exits 125, so a
// script can tell it from the program's own status.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

extern char** environ;

#include "commands.hpp"
#include "config/misspelt_variables.hpp"
#include "runs/run_dir.hpp"
#include "supervisor.hpp"

namespace fiber::cli {

void Error(const std::string& message) { std::fprintf(stderr, "fiber: error: %s\n", message.c_str()); }

std::string RunsRoot() {
  std::string root, err;
  if (runs::RunsRoot(config::ProcessEnvironment, &root, &err))
    return root;
  Error(err);
  std::exit(kFiberError);
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

int main(int argc, char** argv) {
  CLI::App app{"fiber: run a program's work on many processes, containers or pods", "fiber"};
  // As docker: fiber alone, or fiber help, prints the usage and succeeds.
  app.require_subcommand(0, 1);
  app.set_version_flag("--version", fiber::cli::kVersionLine, "print fiber's version");
  int status = 0;
  fiber::cli::RunTail run_tail;
  argc = fiber::cli::CutRunTail(argc, argv, &run_tail);
  fiber::cli::AddRunCommand(app, &status, &run_tail);
  fiber::cli::AddPsCommand(app, &status);
  fiber::cli::AddTopCommand(app, &status);
  fiber::cli::AddLogsCommand(app, &status);
  fiber::cli::AddStopCommand(app, &status);
  fiber::cli::AddConfigCommand(app, &status);
  fiber::cli::AddInitCommand(app, &status);
  fiber::cli::AddImageCommands(app, &status);
  fiber::cli::AddRmCommand(app, &status);
  fiber::cli::AddPruneCommand(app, &status);
  fiber::cli::AddCompleteCommand(app, &status);
  // The app's own usage: app.help() would give that of the subcommand chosen.
  const auto usage = [&app] {
    std::fputs(app.get_formatter()->make_help(&app, app.get_name(), CLI::AppFormatMode::Normal).c_str(),
               stdout);
  };
  CLI::App* help = app.add_subcommand("help", "print this usage");
  help->callback(usage);
  CLI::App* version = app.add_subcommand("version", "print fiber's version");
  version->callback([] { std::printf("%s\n", fiber::cli::kVersionLine); });
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    fiber::cli::Error(e.what());
    return fiber::cli::kFiberError;
  }
  if (app.get_subcommands().empty()) usage();
  return status;
}
