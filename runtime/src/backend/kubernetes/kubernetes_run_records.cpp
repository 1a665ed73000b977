#include "backend/kubernetes/kubernetes_run_records.hpp"

#include <algorithm>
#include <iterator>

#include "backend/kubernetes/run_pods.hpp"
#include "backend/labels.hpp"
#include "config/setting_table.hpp"
#include "kube/kubeconfig.hpp"

namespace fiber::backend {

namespace {

WorkerRecord PodRecord(const RunPod& pod) {
  WorkerRecord w;
  w.worker_id = pod.state.worker_id.empty() ? kMasterRole : pod.state.worker_id;
  w.where = pod.name;
  w.node = pod.state.node;
  w.phase = pod.state.ended               ? WorkerRecord::Phase::kEnded
            : pod.state.phase == "Running" ? WorkerRecord::Phase::kRunning
                                           : WorkerRecord::Phase::kPending;
  w.engine_state = pod.state.phase;
  w.waiting = pod.state.waiting;
  w.exit = pod.state.exit;
  return w;
}

bool ListPods(const RunPlace& run, std::optional<kube::ApiClient>* api, std::vector<RunPod>* pods, std::string* err) {
  return KubernetesRunRecords::Connect(run, api, err) && ListRunPods(**api, run.id, pods, err);
}

}  // namespace

std::vector<const char*> KubernetesRunRecords::variables() const {
  return std::vector<const char*>(std::begin(kube::kSearchVariables), std::end(kube::kSearchVariables));
}

const RecordWords& KubernetesRunRecords::words() const {
  static const RecordWords kWords{"pods", "pod", "pod", "phase", true};
  return kWords;
}

bool KubernetesRunRecords::Connect(const RunPlace& run, std::optional<kube::ApiClient>* out, std::string* err) {
  config::Settings settings;
  for (const char* key : {"kubeconfig", "context", "namespace"}) {
    const std::string value = run.Setting(key);
    std::string unused;
    if (!value.empty()) (void)config::FindSetting(key)->kind.parse(value, &settings, &unused);
  }
  return ConnectCluster(settings, out, err, run.Getenv());
}

RunsWorkers KubernetesRunRecords::List(const std::vector<RunPlace>& runs) const {
  RunsWorkers out;
  for (const RunPlace& run : runs) {
    std::optional<kube::ApiClient> api;
    std::vector<RunPod> pods;
    std::string err;
    if (!ListPods(run, &api, &pods, &err)) {
      out.errors[run.id] = err;
      continue;
    }
    std::vector<WorkerRecord>& workers = out.workers[run.id];
    for (const RunPod& pod : pods) workers.push_back(PodRecord(pod));
  }
  return out;
}

bool KubernetesRunRecords::Leftovers(const RunPlace& run, std::vector<std::string>* out, std::string* err) const {
  // The Secret holding the workers' key outlives pods that ended or were
  // never made.
  std::optional<kube::ApiClient> api;
  bool secret = false;
  if (!Connect(run, &api, err) || !RunSecretExists(*api, run.id, &secret, err)) return false;
  if (secret) out->push_back("its Secret holding the key");
  return true;
}

bool KubernetesRunRecords::ReadLog(const RunPlace& run, const std::string& worker_id, bool follow, bool timestamps,
                                   const std::function<bool(std::string_view)>& show, bool* found,
                                   std::string* err) const {
  *found = false;
  std::optional<kube::ApiClient> api;
  std::vector<RunPod> pods;
  std::string unused;
  if (!ListPods(run, &api, &pods, &unused)) return true;
  const auto pod = std::find_if(pods.begin(), pods.end(), [&](const RunPod& p) {
    return p.state.worker_id == worker_id && !p.deleting;
  });
  if (pod == pods.end()) return true;
  *found = true;
  kube::ApiError e;
  const bool ok = follow ? api->FollowPodLog(pod->name, kWorkerRole, show, nullptr, &e, timestamps)
                         : api->PodLog(pod->name, kWorkerRole, show, &e, timestamps);
  if (!ok) *err = e.message;
  return ok;
}

bool KubernetesRunRecords::Remove(const RunPlace& run, int* removed, std::string* err) const {
  *removed = 0;
  std::optional<kube::ApiClient> api;
  return Connect(run, &api, err) && RemoveRun(*api, run.id, run.dir, removed, err);
}

}  // namespace fiber::backend
