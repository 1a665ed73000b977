#include "backend/engine_adapter.hpp"

#include <iterator>

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
  std::unique_ptr<Backend> (*make)(const config::Settings&);
  bool (*ready)(const config::Settings&, bool image_coming, std::string* err);  // CheckReady
  bool image;                        // its workers run an image
  bool jobs;                         // its workers run in jobs that may hold several (workers_per_job)
  const RunRecords* records;         // nullptr: none outside the run's directory
  const MasterPlacement* placement;  // nullptr: no master: cluster
  DryRun dry_run;                    // nullptr: a run makes no objects to show
};

// One row for each of config::kBackendNames, in its order. docker and
// podman are the container backend with its engine chosen; the container
// backend itself takes the engine setting (EngineOf).
const Engine kEngines[] = {
    {MakeLocal, AlwaysReady, false, false, nullptr, nullptr, nullptr},
    {ContainerBackend::Make, AlwaysReady, true, true, &kContainers, nullptr, nullptr},
    {ContainerBackend::Make, AlwaysReady, true, true, &kContainers, nullptr, nullptr},
    {ContainerBackend::Make, AlwaysReady, true, true, &kContainers, nullptr, nullptr},
    {KubernetesBackend::Make, KubernetesBackend::CheckReady, true, true, &kPods, &kPodMaster, KubernetesDryRun},
    {SlurmBackend::Make, SlurmBackend::CheckReady, false, true, &kJobs, &kJobMaster, nullptr},
};
static_assert(std::size(kEngines) == std::size(config::kBackendNames));

// The row of backend name; nullptr for none.
const Engine* Find(const std::string& name) {
  for (std::size_t i = 0; i < std::size(kEngines); ++i)
    if (name == config::kBackendNames[i]) return &kEngines[i];
  return nullptr;
}

}  // namespace

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
