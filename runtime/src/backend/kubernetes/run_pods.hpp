// A run's Kubernetes objects as the API server records them (by label):
// its pods, and the Secret that stands for the run and owns them
// (templates/run.yaml). Used by the Kubernetes backend for its own pods and
// by KubernetesRunRecords (fiber run, ps, logs and stop) for a whole run,
// also after its master crashed: labels, not fiber's memory, say what a run
// has.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "backend/kubernetes/pod_state.hpp"
#include "config/settings.hpp"
#include "kube/api_client.hpp"
#include "kube/kubeconfig.hpp"

namespace fiber::backend {

/// Where the settings (kubeconfig, context, namespace) and the environment
/// say the cluster's credentials are.
kube::CredentialSearch SearchFor(const config::Settings& settings, const config::Getenv& getenv);

/// A client for the cluster and namespace the settings name (kubeconfig,
/// context, namespace; kube/kubeconfig.hpp), with getenv for KUBECONFIG
/// and HOME (this process's environment when not given).
[[nodiscard]] bool ConnectCluster(const config::Settings& settings,
                                  std::optional<kube::ApiClient>* out, std::string* err,
                                  const config::Getenv& getenv = nullptr);

struct RunPod {
  std::string name;
  PodState state;
  /// Being deleted (metadata.deletionTimestamp): whoever deletes it saved
  /// its log, and its containers may be gone already.
  bool deleting = false;
};

/// The pods labelled with run_id: its workers' and its master's.
[[nodiscard]] bool ListRunPods(const kube::ApiClient& api, const std::string& run_id,
                               std::vector<RunPod>* out, std::string* err);

/// Where a watch of pods got to: the resourceVersion it goes on from (""
/// to list afresh), and the pods it knows to exist (name to labels), so
/// that a list after the server forgot the version (410 Gone) tells which
/// were deleted meanwhile, as client-go's informers do.
struct PodWatchCursor {
  std::string version;
  std::map<std::string, nlohmann::json> present;
};

/// One step of a watch of the pods the label selector matches (for an
/// EngineWatch): from where the last step ended (a new cursor: the pods
/// there are first), each event to on_event until the server ends the
/// watch or stop is set; true then, and when the server has forgotten
/// where the watch was (the next step lists afresh, and hands on each pod
/// the cursor knew that the list lacks as DELETED, with its name and
/// labels only); false with *err when it fails.
[[nodiscard]] bool WatchPodsStep(const kube::ApiClient& api, const std::string& label_selector,
                                 PodWatchCursor* cursor, const std::function<void(const kube::WatchEvent&)>& on_event,
                                 const std::atomic<bool>& stop, std::string* err);

/// Makes the run's Secret (templates/run.yaml in templates_dir, else
/// fiber's own), which holds the workers' key (and files, item to text)
/// and owns the run's pods; or finds it when it exists (fiber run made it
/// for a master in a pod). Its uid in *uid; *made says whether this call
/// made it.
[[nodiscard]] bool MakeRunSecret(const kube::ApiClient& api, const std::string& templates_dir,
                                 const std::string& run_id, const std::string& client_secret,
                                 const std::map<std::string, std::string>& files, std::string* uid,
                                 bool* made, std::string* err);

/// Whether the run's Secret, which holds its workers' key, is still there:
/// a run whose launcher died leaves it; false with *err when the cluster
/// cannot say.
[[nodiscard]] bool RunSecretExists(const kube::ApiClient& api, const std::string& run_id, bool* exists,
                                   std::string* err);

/// Keeps the output of a pod's container where worker_id's goes
/// (backend/worker_output.hpp): appended to log_file with the times the
/// API server gives its lines beside it (runs/log_stamps.hpp), or without
/// one, on stderr, each line headed "[w3] ".
void SavePodLog(const kube::ApiClient& api, const std::string& pod, const std::string& container,
                const std::string& worker_id, const std::string& log_file);

/// Deletes the run's Secret (so Kubernetes' garbage collector deletes
/// whatever else it owns) and every pod labelled with run_id, with one
/// request (deletecollection; a pod at a time, those not already being
/// deleted, when the account may not), the log of each worker no one saved
/// yet saved to its file in run_dir first, a few at once (none when
/// run_dir is empty). Objects already gone are no error; *removed counts
/// the pods, those being deleted too.
[[nodiscard]] bool RemoveRun(const kube::ApiClient& api, const std::string& run_id,
                             const std::string& run_dir, int* removed, std::string* err);

}  // namespace fiber::backend
