// fiber: the launcher. Subcommands live one per file (commands.hpp); a
// failure of fiber itself (bad arguments, bad configuration) exits 125, so a
// script can tell it from the program's own status.
#include <cstdio>

#include "commands.hpp"
#include "error_line.hpp"
#include "run_plan.hpp"
#include "supervisor.hpp"
#include "unknown_argument.hpp"

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
    fiber::cli::Error(fiber::cli::ParseErrorMessage(app, e));
    return fiber::cli::kFiberError;
  }
  if (app.get_subcommands().empty()) usage();
  return status;
}
