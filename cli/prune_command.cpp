// fiber prune: removes every ended run's records, then the images fiber
// packaged that no run uses (as fiber image prune), as docker system prune
// does: asks nothing, prints what it removed and the space freed.
#include <cstdio>

#include "commands.hpp"
#include "settings_flags.hpp"
#include "error_line.hpp"
#include "image_build.hpp"
#include "image_prune.hpp"
#include "run_removal.hpp"
#include "run_store.hpp"
#include "wire/item_directory.hpp"

namespace fiber::cli {

namespace {

int PruneRuns() {
  wire::RemoveAbandonedItemDirectories();  // of masters gone, as ps and run do too
  RunStore store(RunsRoot());
  int status = 0;
  unsigned long long freed = 0;
  int removed = 0;
  for (const RunRecord& run : store.List()) {
    if (RunStore::StateOf(run) == RunState::kRunning) continue;
    unsigned long long bytes = 0;
    std::string err;
    if (!RemoveEndedRun(store, run, &bytes, &err)) {
      Error(err);
      status = 1;
      continue;
    }
    if (removed++ == 0) std::printf("Removed runs:\n");
    std::printf("%s  %s\n", run.id.c_str(), run.name.c_str());
    freed += bytes;
  }
  // Then fiber's images, when there is an engine to ask: a user of the
  // local backend alone may have none.
  SettingsFlags defaults;
  config::Resolved resolved;
  engine::Client engine;
  std::string err;
  if (defaults.Resolve(&resolved, &err) && ConnectImageEngine(resolved.settings, &engine, &err)) {
    PrunedImages pruned;
    if (!PruneImages(engine, "", &pruned, &err)) {
      Error(err);
      status = 1;
    }
    ReportPrunedImages(pruned);
    freed += static_cast<unsigned long long>(pruned.bytes);
  }
  std::printf("Total reclaimed space: %s\n", HumanSize(static_cast<std::int64_t>(freed)).c_str());
  return status;
}

}  // namespace

void AddPruneCommand(CLI::App& app, int* status) {
  CLI::App* prune = app.add_subcommand(
      "prune", "remove every ended run's records and logs, and fiber's images no run uses");
  prune->callback([=] { *status = PruneRuns(); });
}

}  // namespace fiber::cli
