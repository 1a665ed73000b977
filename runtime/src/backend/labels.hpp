// The labels fiber puts on everything it starts for a run (containers,
// pods, the Kubernetes object that stands for the run; the words of a Slurm
// job's comment, which stand for labels there), and by which it
// finds them again: the engine's or the cluster's records, not fiber's
// memory, say what a run has (fiber ps, logs and stop read them after a
// crash too). The one place that names them.
#pragma once

#include <string>

namespace fiber::backend {

inline constexpr const char* kRunLabel = "fiber.run";        // the run's id
inline constexpr const char* kRoleLabel = "fiber.role";      // one of the roles below
inline constexpr const char* kWorkerLabel = "fiber.worker";  // the worker's id
/// A Slurm job array's comment: the worker its array index 0 stands for.
inline constexpr const char* kFirstLabel = "fiber.first";
/// And how many workers apart its indexes are (workers_per_job): index i
/// stands for worker first + i x stride; 1 when not said.
inline constexpr const char* kStrideLabel = "fiber.stride";

/// What a labelled thing is to its run.
inline constexpr const char* kWorkerRole = "worker";
inline constexpr const char* kMasterRole = "master";  // the program, as a pod (master: cluster)
inline constexpr const char* kRunRole = "run";        // the Kubernetes object owning the rest

/// A label filter for the engine's list: "fiber.run=ID".
inline std::string LabelIs(const char* key, const std::string& value) {
  return std::string(key) + "=" + value;
}

/// The name engines show for a run's things, before what tells them
/// apart: "fiber-ID" (its Slurm jobs, its Kubernetes object), "fiber-ID-w3"
/// (a worker's container).
inline std::string RunName(const std::string& run_id) { return "fiber-" + run_id; }

}  // namespace fiber::backend
