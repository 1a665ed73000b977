// fiber rm RUN...: removes ended runs' records (their directories: logs,
// status); a running run is refused and the others are still removed.
#include <cstdio>
#include <memory>
#include <vector>

#include "commands.hpp"
#include "error_line.hpp"
#include "run_removal.hpp"
#include "run_store.hpp"

namespace fiber::cli {

namespace {

int Rm(const std::vector<std::string>& keys) {
  RunStore store(RunsRoot());
  int status = 0;
  for (const std::string& key : keys) {
    RunRecord run;
    unsigned long long bytes = 0;
    std::string err;
    if (!store.Find(key, &run, &err) || !RemoveEndedRun(store, run, &bytes, &err)) {
      Error(err);
      status = 1;
      continue;
    }
    std::printf("%s\n", run.id.c_str());
  }
  return status;
}

}  // namespace

void AddRmCommand(CLI::App& app, int* status) {
  auto keys = std::make_shared<std::vector<std::string>>();
  CLI::App* rm = app.add_subcommand("rm", "remove ended runs' records and logs");
  rm->add_option("RUN", *keys, "run id, unique prefix of one, or name")->required();
  rm->callback([=] { *status = Rm(*keys); });
}

}  // namespace fiber::cli
