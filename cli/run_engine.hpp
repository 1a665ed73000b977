// Where a run's workers live outside fiber's processes, for fiber run
// (which removes them when the master ends, however it ended), ps, logs
// and stop: the container engine the run's recorded settings name (reached
// as the backend reaches it, engine/engine_socket.hpp), or the Kubernetes
// cluster and namespace they name (backend/kubernetes/run_pods.hpp), or
// the Slurm cluster this machine's Slurm commands reach; found as the run
// found them when it started (its recorded EngineEnvironment)
// (backend/slurm/run_jobs.hpp).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/engine_client.hpp"
#include "kube/api_client.hpp"
#include "run_store.hpp"

namespace fiber::cli {

/// True when the run's backend puts its workers in containers.
bool RunsInContainers(const RunRecord& run);
/// True when the run's backend puts its workers in Kubernetes pods.
bool RunsOnKubernetes(const RunRecord& run);

/// True when the run's backend puts its workers in Slurm jobs.
bool RunsOnSlurm(const RunRecord& run);

/// The variables that say where engines and clusters are
/// (engine::kSocketVariables, kube::kSearchVariables,
/// backend::kSlurmVariables), those getenv has:
/// what fiber run records, so that stop, ps, logs and prune reach the
/// run's own engine or cluster from any shell.
std::map<std::string, std::string> EngineEnvironment(const config::Getenv& getenv);

/// What the run's Slurm commands get on top of this process's environment
/// (backend::RunSlurm's env): the Slurm variables it recorded.
std::vector<std::string> SlurmEnvOf(const RunRecord& run);

/// Which Slurm cluster the run used, for errors: "the Slurm cluster of
/// SLURM_CONF=/etc/slurm.conf", or "this machine's Slurm cluster".
std::string SlurmClusterOf(const RunRecord& run);

/// Connects to the run's engine; false with *err when it has none or the
/// engine does not answer.
[[nodiscard]] bool ConnectRunEngine(const RunRecord& run, engine::Client* out, std::string* err);
/// A client for the run's cluster and namespace; false with *err.
[[nodiscard]] bool ConnectRunCluster(const RunRecord& run, std::optional<kube::ApiClient>* out,
                                     std::string* err);

/// What the engine records of the master of a run whose program runs in
/// the cluster (master: cluster): its pod, found by its labels, or the
/// Slurm job fiber run recorded, among the user's own jobs. *runs while it
/// runs or waits to; once it ended, *exit_status when the engine says how.
/// False with *err when the engine cannot say.
[[nodiscard]] bool ClusterMasterState(const RunRecord& run, bool* runs, std::optional<int>* exit_status,
                                      std::string* err);
/// Has the engine stop that master as its launcher would have: SIGTERM to
/// the program (Kubernetes kills it after the run's grace period), or with
/// force, at once.
[[nodiscard]] bool StopClusterMaster(const RunRecord& run, bool force, std::string* err);

/// "2 containers", "1 pod": n of what, "" for none.
std::string Counted(int n, const char* what);

/// Removes the run's containers or pods (and its Secret), found by label,
/// their output saved to the run's worker logs first, or cancels its Slurm
/// jobs, found by name. True when there was nothing to remove or all of it
/// went; *removed says how many of what ("2 containers", "" for none).
[[nodiscard]] bool RemoveRunWorkers(const RunRecord& run, std::string* removed, std::string* err);

}  // namespace fiber::cli
