// Workers as Kubernetes pods, through the API server (kube/api_client.hpp).
// Each worker is the master's program, at the same path in the run's image
// (fiber run packages and pushes it), in a pod rendered from
// templates/worker-pod.yaml: labelled with the run, its role and its id,
// with the pool's cpu, memory and GPUs as requests and limits, and owned by
// the run's Secret (templates/run.yaml), which holds the workers' key: the
// pod mounts it as a file, so no pod spec holds the key. Deleting the
// Secret deletes every pod of the run; the run's backend (one for all its
// pools) deletes it as it goes, and fiber run does after the master ends,
// however it ended.
//
// Pods are created and deleted on a few threads of the backend's own
// (pod_requests.hpp), within the client's rate limit: Start hands a pod
// over and returns, and a creation the API server refuses is that
// worker's exit (status 126, as a program that cannot run), reported once.
// A pod costs the master nothing until its worker connects, so a whole
// pool's pods are asked for at once (up to kMaxStartingPods), and a pod
// not yet created, or seen waiting for a node, waits in a queue (Queued),
// its start_timeout not yet running, as a pending Slurm job's (one the
// watch cannot see is not queued: its start_timeout runs).
//
// A watch of the run's pods (on a thread of its own) tells how each one is
// doing: Poll reports those that ended (with their container's exit, or an
// image that cannot be pulled) once their output is copied to the worker's
// log file (without one, to the master's stderr) and their deletion asked,
// and says once, as a warning, why a pod waits
// (the scheduler's "0/1 nodes are available: 1 Insufficient cpu."). The
// watch keeps only pods that exist: its memory is bounded by the run's
// pods, as the backend's is.
//
// Driven from the master's I/O thread only, like every backend.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "backend/backend.hpp"
#include "backend/engine_watch.hpp"
#include "backend/kubernetes/manifest_template.hpp"
#include "backend/kubernetes/pod_requests.hpp"
#include "backend/kubernetes/pod_state.hpp"
#include "kube/api_client.hpp"

namespace fiber::backend {

class RunSecret;

class KubernetesBackend : public Backend {
 public:
  static std::unique_ptr<Backend> Make(const config::Settings& settings);
  /// False with *err when its nodes would have no image to pull: neither
  /// the image setting, nor a registry to push the packaged program to,
  /// nor one being built (image_coming, --build).
  [[nodiscard]] static bool CheckReady(const config::Settings& settings, bool image_coming, std::string* err);
  explicit KubernetesBackend(config::Settings settings);
  ~KubernetesBackend() override;
  const char* name() const override { return "kubernetes"; }
  [[nodiscard]] bool Start(const Launch& launch, std::string* err) override;
  void Kill(const std::string& worker_id) override;
  std::vector<Exit> Poll() override;
  void KillAll() override;
  std::vector<std::string> Queued() const override { return queued_; }
  /// A pod waiting for its node costs the master a few hundred bytes: a
  /// pool of thousands has all its pods asked for at once.
  int MaxStarting() const override { return kMaxStartingPods; }
  static constexpr int kMaxStartingPods = 2048;

 private:
  struct Pod {
    std::string name;
    std::string log_file;
    std::string warned;   // the waiting reason last said
    bool killed = false;  // its deletion asked
    bool created = false;  // the API server has it
  };
  /// The run's workers' pods as the watch saw them.
  struct SeenPods {
    std::map<std::string, PodState> latest;  // the latest state, by worker id
    std::set<std::string> deleted;           // workers whose pods the API no longer has
  };
  [[nodiscard]] bool Connect(const Launch& launch, std::string* err);
  /// One creation fewer waits or is under way; the last of a wave says
  /// what the wave asked of the API server (FIBER_LOG=info).
  void CreationDone();
  /// "N requests sent, N answered 429 or 503, at most N tries of one".
  std::string RequestsSent() const;

  config::Settings settings_;
  std::optional<kube::ApiClient> api_;
  Template template_;
  std::unique_ptr<RunSecret> secret_;
  std::string run_id_;
  std::unique_ptr<PodRequests> requests_;  // from Connect on
  std::map<std::string, Pod> pods_;  // not yet seen to end, by worker id
  std::map<std::string, Exit> ending_;  // seen to end, their logs being saved
  std::vector<Exit> unborn_;            // killed before their pods were created
  std::vector<std::string> queued_;     // as of the last Poll
  int creating_ = 0;                    // creations waiting or under way
  int wave_ = 0;                        // pods asked for since creating_ was 0
  std::chrono::steady_clock::time_point wave_start_;
  std::unique_ptr<EngineWatch<SeenPods>> watch_;  // from Connect on
  bool warned_watch_ = false;
};

}  // namespace fiber::backend
