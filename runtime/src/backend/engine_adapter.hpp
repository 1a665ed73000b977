// The one lookup from a backend name (plain data, config/backend_names.hpp)
// to its engine's pieces: the Backend the master drives, the RunRecords the
// command reads, the MasterPlacement where the engine can run the program
// as master (master: cluster), what it checks before a run, and its dry
// run. Adding an engine adds its folder, one row to this table and one to
// config::kBackends. Thread-safe.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "backend/master_placement.hpp"
#include "backend/run_records.hpp"
#include "config/resolve.hpp"
#include "config/settings.hpp"

namespace fiber::backend {

/// The backend name of every row, in order: the names config::kBackends
/// gives the settings (engine_adapter_test pins that they agree).
std::vector<std::string> AdapterNames();

/// The variables that say where engines and clusters are, those getenv
/// has, as each engine's records declare them (RunRecords::variables):
/// what fiber run records (RunPlace::engine_env), so that stop, ps, logs
/// and prune reach the run's own engine or cluster from any shell.
std::map<std::string, std::string> EngineEnvironment(const config::Getenv& getenv);

/// The backend settings.backend names, for workers with these settings;
/// nullptr with *err for an unknown one.
std::unique_ptr<Backend> Make(const config::Settings& settings, std::string* err);

/// False with *err when settings.backend cannot work here as set (the
/// kubernetes backend with no image for its nodes, Slurm's commands
/// missing): fiber run refuses it before the program starts, not at its
/// first Pool. image_coming: fiber run builds one (--build).
[[nodiscard]] bool CheckReady(const config::Settings& settings, bool image_coming, std::string* err);

/// True when backend name's workers run an image (containers, pods); the
/// local and Slurm backends run the program itself.
bool RunsImages(const std::string& name);

/// The records of the run's engine; nullptr for a backend whose workers
/// leave none outside the run's directory (local).
const RunRecords* RecordsOf(const RunPlace& run);

/// Writes to *yaml the objects a run of program (its path and arguments)
/// with these settings and env (KEY=VALUE, --env) would make on the
/// engine, as its own tools read them back (fiber run --dry-run -o yaml);
/// false with *err naming the template or setting at fault.
using DryRun = bool (*)(const config::Resolved& resolved, const std::vector<std::string>& program,
                        const std::vector<std::string>& env, std::string* yaml, std::string* err);

/// The dry run of backend name's engine; nullptr when a run makes no
/// objects there to show.
DryRun DryRunOf(const std::string& name);

/// Where the run's engine places a master in the cluster; nullptr when it
/// cannot.
const MasterPlacement* PlacementOf(const RunPlace& run);

}  // namespace fiber::backend
