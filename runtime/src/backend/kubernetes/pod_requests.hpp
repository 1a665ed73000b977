// The Kubernetes backend's requests about its workers' pods (create; save
// the log, then delete), made on a few threads of its own: the master's
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
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "kube/api_client.hpp"

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
  ~PodRequests();
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
  [[nodiscard]] bool WaitIdle(std::chrono::steady_clock::time_point deadline);

 private:
  struct Request {
    std::string worker_id;
    bool create = false;
    Manifest manifest;        // a creation's
    Deletion deletion;        // a deletion's
  };
  void Serve();
  void Perform(Request& request);

  const kube::ApiClient api_;
  std::mutex mu_;
  std::condition_variable wake_;  // a request to serve, or stop
  std::condition_variable idle_;  // a request done
  std::deque<Request> queue_;                  // guarded by mu_
  std::set<std::string> waiting_creations_;    // guarded by mu_: creations in queue_, by worker
  std::set<std::string> creating_;             // guarded by mu_: under way
  std::map<std::string, Deletion> after_creation_;  // guarded by mu_: deletions of pods being created
  int busy_ = 0;                               // guarded by mu_
  bool stop_ = false;                          // guarded by mu_
  std::vector<std::string> created_;           // guarded by mu_
  std::vector<Failure> failed_;                // guarded by mu_
  std::vector<std::string> deleted_;           // guarded by mu_
  std::vector<std::thread> threads_;
};

}  // namespace fiber::backend
