// fiber config show: the effective settings and where each came from;
// fiber init: a commented starter fiber.yaml in the current directory.
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "config/sources_report.hpp"
#include "config/starter_file.hpp"
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

int Init() {
  const int fd = ::open(config::kProjectFileName, O_WRONLY | O_CREAT | O_EXCL, 0644);
  if (fd < 0) {
    Error(std::string("cannot write ") + config::kProjectFileName + ": " +
          (errno == EEXIST ? "it exists already" : std::strerror(errno)));
    return kFiberError;
  }
  const std::string text = config::StarterFile();
  const bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ::close(fd);
  if (!ok) {
    Error(std::string("cannot write ") + config::kProjectFileName);
    return kFiberError;
  }
  std::fprintf(stderr, "fiber: wrote %s\n", config::kProjectFileName);
  return 0;
}

}  // namespace

void AddConfigCommands(CLI::App& app, int* status) {
  CLI::App* config = app.add_subcommand("config", "the settings in effect");
  config->require_subcommand(1);
  auto flags = std::make_shared<SettingsFlags>();
  auto json = std::make_shared<bool>(false);
  CLI::App* show = config->add_subcommand("show", "the effective settings and where each came from");
  flags->AddTo(*show);
  show->add_flag("--json", *json, "a JSON object by setting: value and source");
  show->callback([=] { *status = Show(*flags, *json); });
  CLI::App* init = app.add_subcommand("init", "write a commented starter fiber.yaml here");
  init->callback([=] { *status = Init(); });
}

}  // namespace fiber::cli
