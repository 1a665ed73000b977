#include "run_removal.hpp"

#include "backend/engine_adapter.hpp"

namespace fiber::cli {

bool RemoveRunWorkers(const RunRecord& run, std::string* removed, std::string* err) {
  removed->clear();
  const backend::RunPlace place = PlaceOf(run);
  const backend::RunRecords* records = backend::RecordsOf(place);
  if (!records) return true;
  int n = 0;
  const bool ok = records->Remove(place, &n, err);
  *removed = backend::Counted(n, records->words().thing);
  return ok;
}

bool RemoveEndedRun(RunStore& store, const RunRecord& run, unsigned long long* bytes, std::string* err) {
  *bytes = 0;
  const RunState state = RunStore::StateOf(run);
  if (state == RunState::kRunning) {
    *err = "run " + run.id + " (" + run.name + ") is running; stop it first (fiber stop " + run.id + ")";
    return false;
  }
  if (state == RunState::kUnknown) {
    *err = "run " + run.id + " (" + run.name + ") is kept: cannot tell whether its master still runs in the cluster: " +
           run.master_unknown;
    return false;
  }
  // Its launcher removed them when it recorded the end; a run whose
  // launcher died may have left some.
  if (state == RunState::kMasterDied || run.launcher_gone) {
    std::string removed;
    if (!RemoveRunWorkers(run, &removed, err)) {
      *err = "run " + run.id + " is kept: its workers cannot be removed: " + *err;
      return false;
    }
  }
  return store.Remove(run, bytes, err);
}

}  // namespace fiber::cli
