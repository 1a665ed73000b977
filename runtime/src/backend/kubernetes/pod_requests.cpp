#include "backend/kubernetes/pod_requests.hpp"

#include <algorithm>

#include "backend/kubernetes/run_pods.hpp"
#include "backend/labels.hpp"
#include "diagnostics/log.hpp"
#include "os/background_thread.hpp"

namespace fiber::backend {

PodRequests::PodRequests(kube::ApiClient api, int threads) : api_(std::move(api)) {
  for (int i = 0; i < threads; ++i)
    threads_.push_back(StartBackgroundThread([this] { Serve(); }, [](const std::string& what) {
      log::Warning("a thread making the run's pods ended: " + what);
    }));
}

PodRequests::~PodRequests() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
    queue_.clear();
    waiting_creations_.clear();
  }
  wake_.notify_all();
  for (std::thread& thread : threads_) thread.join();
}

void PodRequests::Create(const std::string& worker_id, Manifest manifest) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    waiting_creations_.insert(worker_id);
    queue_.push_back({worker_id, true, std::move(manifest), {}});
  }
  wake_.notify_one();
}

bool PodRequests::Delete(const std::string& worker_id, Deletion deletion) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (waiting_creations_.erase(worker_id)) {
      std::erase_if(queue_, [&](const Request& r) { return r.create && r.worker_id == worker_id; });
      return false;
    }
    if (creating_.count(worker_id)) {
      after_creation_[worker_id] = std::move(deletion);
      return true;
    }
    queue_.push_back({worker_id, false, {}, std::move(deletion)});
  }
  wake_.notify_one();
  return true;
}

std::vector<std::string> PodRequests::TakeCreated() {
  std::lock_guard<std::mutex> lock(mu_);
  return std::exchange(created_, {});
}

std::vector<PodRequests::Failure> PodRequests::TakeFailed() {
  std::lock_guard<std::mutex> lock(mu_);
  return std::exchange(failed_, {});
}

std::vector<std::string> PodRequests::TakeDeleted() {
  std::lock_guard<std::mutex> lock(mu_);
  return std::exchange(deleted_, {});
}

bool PodRequests::WaitIdle(std::chrono::steady_clock::time_point deadline) {
  std::unique_lock<std::mutex> lock(mu_);
  return idle_.wait_until(lock, deadline, [this] { return queue_.empty() && busy_ == 0; });
}

void PodRequests::Serve() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    wake_.wait(lock, [this] { return stop_ || !queue_.empty(); });
    if (stop_) return;
    Request request = std::move(queue_.front());
    queue_.pop_front();
    if (request.create) {
      waiting_creations_.erase(request.worker_id);
      creating_.insert(request.worker_id);
    }
    ++busy_;
    lock.unlock();
    Perform(request);
    lock.lock();
    --busy_;
    idle_.notify_all();
  }
}

void PodRequests::Perform(Request& request) {
  kube::ApiError e;
  if (request.create) {
    nlohmann::json manifest, object;
    std::string why;
    bool made = request.manifest(&manifest, &why);
    request.manifest = nullptr;  // its memory goes now, not when the batch is done
    if (made) {
      made = api_.Create(kube::kPods, manifest, &object, &e);
      why = e.message;
    }
    manifest = nullptr;
    std::lock_guard<std::mutex> lock(mu_);
    creating_.erase(request.worker_id);
    const auto after = after_creation_.find(request.worker_id);
    if (made) {
      created_.push_back(request.worker_id);
    } else {
      failed_.push_back({request.worker_id, why});
    }
    if (after == after_creation_.end()) return;
    if (made) {
      // Deleted at once, ahead of what waits: the worker is gone already.
      queue_.push_front({request.worker_id, false, {}, std::move(after->second)});
      wake_.notify_one();
    } else {
      deleted_.push_back(request.worker_id);
    }
    after_creation_.erase(after);
    return;
  }
  const Deletion& d = request.deletion;
  SavePodLog(api_, d.pod, kWorkerRole, request.worker_id, d.log_file);
  if (!api_.Delete(kube::kPods, d.pod, &e, d.grace_seconds) && e.kind != kube::ApiErrorKind::kNotFound)
    log::Warning("cannot delete worker " + request.worker_id + "'s pod: " + e.message);
  std::lock_guard<std::mutex> lock(mu_);
  deleted_.push_back(request.worker_id);
}

}  // namespace fiber::backend
