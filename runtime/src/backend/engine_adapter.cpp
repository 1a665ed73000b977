#include "backend/engine_adapter.hpp"

#include <map>

#include "backend/container/container_backend.hpp"
#include "backend/container/container_run_records.hpp"
#include "backend/job_packing.hpp"
#include "backend/kubernetes/kubernetes_backend.hpp"
#include "backend/kubernetes/kubernetes_dry_run.hpp"
#include "backend/kubernetes/kubernetes_master_placement.hpp"
#include "backend/kubernetes/kubernetes_run_records.hpp"
#include "backend/local/local_backend.hpp"
#include "backend/slurm/slurm_backend.hpp"
#include "backend/slurm/slurm_master_placement.hpp"
#include "backend/slurm/slurm_run_records.hpp"
#include "config/backend_names.hpp"

namespace fiber::backend {

namespace {

const ContainerRunRecords kContainers;
const KubernetesRunRecords kPods;
const SlurmRunRecords kJobs;
const KubernetesMasterPlacement kPodMaster;
const SlurmMasterPlacement kJobMaster;

std::unique_ptr<Backend> MakeLocal(const config::Settings&) { return std::make_unique<LocalBackend>(); }
bool AlwaysReady(const config::Settings&, bool, std::string*) { return true; }

struct Engine {
  const char* name;  // as config::kBackends names it, in its order
  std::unique_ptr<Backend> (*make)(const config::Settings&);
  bool (*ready)(const config::Settings&, bool image_coming, std::string* err);  // CheckReady
  bool image;                        // its workers run an image
  bool jobs;                         // its workers run in jobs that may hold several (workers_per_job)
  const RunRecords* records;         // nullptr: none outside the run's directory
  const MasterPlacement* placement;  // nullptr: no master: cluster
  DryRun dry_run;                    // nullptr: a run makes no objects to show
};

// One row for each of config::kBackends, in its order (engine_adapter_test
// pins it). docker and podman are the container backend with its engine
// chosen; the container backend itself takes the engine setting
// (config::EngineOf).
const Engine kEngines[] = {
    {"local", MakeLocal, AlwaysReady, false, false, nullptr, nullptr, nullptr},
    {"docker", ContainerBackend::Make, AlwaysReady, true, true, &kContainers, nullptr, nullptr},
    {"podman", ContainerBackend::Make, AlwaysReady, true, true, &kContainers, nullptr, nullptr},
    {"container", ContainerBackend::Make, AlwaysReady, true, true, &kContainers, nullptr, nullptr},
    {"kubernetes", KubernetesBackend::Make, KubernetesBackend::CheckReady, true, true, &kPods, &kPodMaster,
     KubernetesDryRun},
    {"slurm", SlurmBackend::Make, SlurmBackend::CheckReady, false, true, &kJobs, &kJobMaster, nullptr},
};

// The row of backend name; nullptr for none.
const Engine* Find(const std::string& name) {
  for (const Engine& e : kEngines)
    if (name == e.name) return &e;
  return nullptr;
}

}  // namespace

std::vector<std::string> AdapterNames() {
  std::vector<std::string> names;
  for (const Engine& e : kEngines) names.push_back(e.name);
  return names;
}

std::map<std::string, std::string> EngineEnvironment(const config::Getenv& getenv) {
  std::map<std::string, std::string> env;
  for (const Engine& e : kEngines) {
    if (!e.records) continue;
    for (const char* name : e.records->variables())
      if (const char* value = getenv(name)) env[name] = value;
  }
  return env;
}

std::unique_ptr<Backend> Make(const config::Settings& settings, std::string* err) {
  const Engine* e = Find(settings.backend);
  if (e && e->jobs && settings.workers_per_job > 1)
    return std::make_unique<PackedBackend>(e->make(settings), settings.workers_per_job);
  if (e) return e->make(settings);
  (void)config::CheckBackendName(settings.backend, err);
  return nullptr;
}

bool CheckReady(const config::Settings& settings, bool image_coming, std::string* err) {
  const Engine* e = Find(settings.backend);
  return !e || e->ready(settings, image_coming, err);
}

bool RunsImages(const std::string& name) {
  const Engine* e = Find(name);
  return e && e->image;
}

const RunRecords* RecordsOf(const RunPlace& run) {
  const Engine* e = Find(run.backend);
  return e ? e->records : nullptr;
}

DryRun DryRunOf(const std::string& name) {
  const Engine* e = Find(name);
  return e ? e->dry_run : nullptr;
}

const MasterPlacement* PlacementOf(const RunPlace& run) {
  const Engine* e = Find(run.backend);
  return e ? e->placement : nullptr;
}

}  // namespace fiber::backend
