// The Kubernetes backend's requests about its workers' pods (create; save
// the log, then delete), made on a few threads of its own (a RequestQueue,
// backend/request_queue.hpp): the master's
// I/O thread hands over a whole pool's pods at once and goes on, and as
// many requests are in flight as there are threads, all within the
// client's rate limit (kube_qps, kube_burst), never a thread per pod.
// Requests about one worker keep their order: a pod deleted while its
// creation still waits is never created, and one deleted while it is being
// created is deleted as soon as it exists. Each pod's manifest is made on
// those threads too, as its creation comes: memory is what makes one (its
// values) per pod waiting to be created. Thread-safe.
#pragma once

#include <chrono>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "backend/request_queue.hpp"
#include "kube/api_client.hpp"
#include "os/mutex.hpp"

namespace fiber::backend {

class PodRequests {
 public:
  /// A creation the API server refused, or that never got an answer.
  struct Failure {
    std::string worker_id;
    std::string error;  // the client's one line
  };
  /// A pod to delete, its container's output saved first (SavePodLog):
  /// a worker's output outlives its pod however it ended.
  struct Deletion {
    std::string pod;
    int grace_seconds = -1;  // -1: the pod's own
    std::string log_file;    // empty: to this process's stderr
  };

  /// Makes a pod's manifest, on one of the threads: false with *err when
  /// it cannot, which fails the creation with that error.
  using Manifest = std::function<bool(nlohmann::json* manifest, std::string* err)>;

  PodRequests(kube::ApiClient api, int threads);
  /// Drops the requests that wait; waits for those under way.
  ~PodRequests() { queue_.Stop(); }
  PodRequests(const PodRequests&) = delete;
  PodRequests& operator=(const PodRequests&) = delete;

  void Create(const std::string& worker_id, Manifest manifest);
  /// Deletes worker_id's pod; false when its creation was still waiting,
  /// which is dropped instead: there is no pod to delete.
  bool Delete(const std::string& worker_id, Deletion deletion);
  /// Workers whose pods were created since the last call, each once.
  std::vector<std::string> TakeCreated();
  /// Creations that failed since the last call, each once.
  std::vector<Failure> TakeFailed();
  /// Workers whose pod's deletion was asked (its log saved first) since
  /// the last call, each once; also those whose creation failed after a
  /// deletion was asked.
  std::vector<std::string> TakeDeleted();
  /// Waits until nothing waits or is under way; false when the deadline
  /// came first.
  [[nodiscard]] bool WaitIdle(std::chrono::steady_clock::time_point deadline) { return queue_.WaitIdle(deadline); }

 private:
  void Make(const std::string& worker_id, Manifest& manifest);
  void Remove(const std::string& worker_id, const Deletion& deletion);

  const kube::ApiClient api_;
  os::Mutex mu_;
  std::set<std::string> not_created_ FIBER_GUARDED_BY(mu_);  // creations failed, a deletion asked after them
  std::vector<std::string> created_ FIBER_GUARDED_BY(mu_);
  std::vector<Failure> failed_ FIBER_GUARDED_BY(mu_);
  std::vector<std::string> deleted_ FIBER_GUARDED_BY(mu_);
  RequestQueue queue_;                 // last: its threads go before what they use
};

}  // namespace fiber::backend
