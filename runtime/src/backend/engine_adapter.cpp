#include "backend/engine_adapter.hpp"

#include "backend/container/container_backend.hpp"
#include "backend/container/container_run_records.hpp"
#include "backend/kubernetes/kubernetes_run_records.hpp"
#include "backend/slurm/slurm_run_records.hpp"

namespace fiber::backend {

const RunRecords* RecordsOf(const RunPlace& run) {
  static const ContainerRunRecords kContainers;
  static const KubernetesRunRecords kPods;
  static const SlurmRunRecords kJobs;
  if (!EngineOf(run.backend, run.Setting("engine")).empty()) return &kContainers;
  if (run.backend == "kubernetes") return &kPods;
  if (run.backend == "slurm") return &kJobs;
  return nullptr;
}

const MasterPlacement* PlacementOf(const RunPlace& run) {
  static const KubernetesMasterPlacement kPod;
  static const SlurmMasterPlacement kJob;
  if (run.backend == "kubernetes") return &kPod;
  if (run.backend == "slurm") return &kJob;
  return nullptr;
}

}  // namespace fiber::backend
