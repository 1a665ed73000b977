// fiber config show: the effective settings and where each came from.
#include <cstdio>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "settings_flags.hpp"
#include "error_line.hpp"
#include "config/sources_report.hpp"
#include "supervisor.hpp"

namespace fiber::cli {

namespace {

int Show(const SettingsFlags& flags, bool json) {
  config::Resolved resolved;
  std::string err;
  if (!flags.Resolve(&resolved, &err)) {
    Error(err);
    return kFiberError;
  }
  if (!json) {
    std::fputs(config::SourcesReport(resolved).c_str(), stdout);
    return 0;
  }
  nlohmann::json out = nlohmann::json::object();
  for (const config::Setting& s : config::Table())
    out[s.key] = {{"value", s.kind.show(resolved.settings)}, {"source", resolved.sources[s.key]}};
  std::printf("%s\n", out.dump(2).c_str());
  return 0;
}

}  // namespace

void AddConfigCommand(CLI::App& app, int* status) {
  CLI::App* config = app.add_subcommand("config", "the settings in effect");
  config->require_subcommand(1);
  auto flags = std::make_shared<SettingsFlags>();
  auto json = std::make_shared<bool>(false);
  CLI::App* show = config->add_subcommand("show", "the effective settings and where each came from");
  flags->AddTo(*show);
  show->add_flag("--json", *json, "a JSON object by setting: value and source");
  show->callback([=] { *status = Show(*flags, *json); });
}

}  // namespace fiber::cli
