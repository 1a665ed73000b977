#include "backend/kubernetes/pod_requests.hpp"

#include <utility>

#include "backend/kubernetes/run_pods.hpp"
#include "backend/labels.hpp"
#include "diagnostics/log.hpp"
#include "os/mutex.hpp"

namespace fiber::backend {

PodRequests::PodRequests(kube::ApiClient api, int threads)
    : api_(std::move(api)), queue_(threads, {}, "making the run's pods") {}

void PodRequests::Create(const std::string& worker_id, Manifest manifest) {
  queue_.Post(worker_id, [this, worker_id, manifest = std::move(manifest)]() mutable { Make(worker_id, manifest); });
}

bool PodRequests::Delete(const std::string& worker_id, Deletion deletion) {
  // A creation still waiting: nothing to delete. One under way: deleted
  // as soon as it exists, the worker's next request.
  if (queue_.Drop(worker_id)) return false;
  queue_.Post(worker_id, [this, worker_id, deletion = std::move(deletion)] { Remove(worker_id, deletion); });
  return true;
}

std::vector<std::string> PodRequests::TakeCreated() {
  os::MutexLock lock(mu_);
  return std::exchange(created_, {});
}

std::vector<PodRequests::Failure> PodRequests::TakeFailed() {
  os::MutexLock lock(mu_);
  return std::exchange(failed_, {});
}

std::vector<std::string> PodRequests::TakeDeleted() {
  os::MutexLock lock(mu_);
  return std::exchange(deleted_, {});
}

void PodRequests::Make(const std::string& worker_id, Manifest& make) {
  kube::ApiError e;
  nlohmann::json manifest, object;
  std::string why;
  bool made = make(&manifest, &why);
  make = nullptr;  // its memory goes now, not when the batch is done
  if (made) {
    made = api_.Create(kube::kPods, manifest, &object, &e);
    why = e.message;
  }
  os::MutexLock lock(mu_);
  if (made) {
    created_.push_back(worker_id);
  } else {
    failed_.push_back({worker_id, why});
    not_created_.insert(worker_id);
  }
}

void PodRequests::Remove(const std::string& worker_id, const Deletion& d) {
  {
    os::MutexLock lock(mu_);
    if (not_created_.erase(worker_id)) {
      deleted_.push_back(worker_id);
      return;
    }
  }
  SavePodLog(api_, d.pod, kWorkerRole, worker_id, d.log_file);
  kube::ApiError e;
  if (!api_.Delete(kube::kPods, d.pod, &e, d.grace_seconds) && e.kind != kube::ApiErrorKind::kNotFound)
    log::Warning("cannot delete worker " + worker_id + "'s pod: " + e.message);
  os::MutexLock lock(mu_);
  deleted_.push_back(worker_id);
}

}  // namespace fiber::backend
