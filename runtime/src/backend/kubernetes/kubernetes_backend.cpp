#include "backend/kubernetes/kubernetes_backend.hpp"

#include <signal.h>

#include <algorithm>
#include <chrono>
#include <set>

#include "backend/command_line.hpp"
#include "backend/kubernetes/pod_manifest.hpp"
#include "backend/kubernetes/pod_template.hpp"
#include "backend/kubernetes/run_pods.hpp"
#include "backend/kubernetes/run_secret.hpp"
#include "backend/labels.hpp"
#include "backend/master_reach.hpp"
#include "diagnostics/log.hpp"

namespace fiber::backend {

namespace {

// A stopped worker's time to end before its container is killed.
constexpr int kKillGraceSeconds = 1;
// Requests about pods in flight at once: enough to keep kube_qps's default
// of 50 a second going while each takes up to 160 ms to answer.
constexpr int kRequestThreads = 8;
// A worker whose pod the API server would not create: as a program that
// cannot run, each replacement would fail the same way.
constexpr int kCannotCreate = 126;

}  // namespace

/// The run's Secret, made by the run's backend when it starts its first
/// pod and deleted when it goes, unless it was there before (fiber run made
/// it for a master in a pod, and deletes it once it has the master's exit
/// status).
class RunSecret {
 public:
  static std::unique_ptr<RunSecret> Make(const kube::ApiClient& api, const config::Settings& settings,
                                         const worker::Bootstrap& bootstrap, std::string* err) {
    std::unique_ptr<RunSecret> secret(new RunSecret(api, bootstrap.run_id));
    if (!MakeRunSecret(api, settings.templates, bootstrap.run_id, bootstrap.client_secret, {}, &secret->uid_,
                       &secret->made_, err))
      return nullptr;
    return secret;
  }
  ~RunSecret() {
    kube::ApiError e;
    if (made_ && !api_.Delete(kube::kSecrets, RunObjectName(run_id_), &e) &&
        e.kind != kube::ApiErrorKind::kNotFound)
      log::Warning("cannot delete the run's Secret " + RunObjectName(run_id_) + ": " + e.message);
  }
  const std::string& uid() const { return uid_; }

 private:
  RunSecret(kube::ApiClient api, std::string run_id) : api_(std::move(api)), run_id_(std::move(run_id)) {}
  kube::ApiClient api_;
  std::string run_id_;
  std::string uid_;
  bool made_ = false;
};

std::unique_ptr<Backend> KubernetesBackend::Make(const config::Settings& settings) {
  return std::make_unique<KubernetesBackend>(settings);
}

bool KubernetesBackend::CheckReady(const config::Settings& settings, bool image_coming, std::string* err) {
  if (!settings.image.empty() || !settings.registry.empty() || image_coming) return true;
  *err = "the kubernetes backend needs an image its nodes can pull: set registry (REGISTRY/NAME, "
         "where fiber run pushes the packaged program) or image";
  return false;
}

KubernetesBackend::KubernetesBackend(config::Settings settings) : settings_(std::move(settings)) {}

KubernetesBackend::~KubernetesBackend() {
  KillAll();
  requests_.reset();
  watch_.reset();
  // What the run asked of a shared API server (FIBER_LOG=info), when the
  // master ends by itself (fiber stop's SIGTERM ends it before).
  if (api_) log::Info("the kubernetes backend is done: " + RequestsSent());
}

std::string KubernetesBackend::RequestsSent() const {
  const kube::RequestCounts& counts = api_->counts();
  return std::to_string(counts.sent) + " requests sent, " + std::to_string(counts.throttled) +
         " answered 429 or 503, at most " + std::to_string(counts.most_tries) + " tries of one";
}

void KubernetesBackend::CreationDone() {
  if (creating_ == 0 || --creating_ > 0) return;
  // The scale tests and bench/kwok_pods read this line.
  log::Info("the kubernetes backend asked for " + std::to_string(wave_) + " pods in " +
            log::Seconds(std::chrono::steady_clock::now() - wave_start_) + "; so far " + RequestsSent());
}

bool KubernetesBackend::Connect(const Launch& launch, std::string* err) {
  if (api_) return true;
  if (settings_.image.empty()) {
    *err = "no image for the workers' pods: fiber run packages the program and pushes it to the "
           "registry setting (--registry REGISTRY/NAME), or set image (--image)";
    return false;
  }
  std::optional<kube::ApiClient> api;
  if (!ConnectCluster(settings_, &api, err) ||
      !LoadTemplate(kWorkerPodTemplate, settings_.templates, &template_, err))
    return false;
  secret_ = RunSecret::Make(*api, settings_, launch.bootstrap, err);
  if (!secret_) return false;
  api_ = std::move(api);
  run_id_ = launch.bootstrap.run_id;
  requests_ = std::make_unique<PodRequests>(*api_, kRequestThreads);
  watch_ = std::make_unique<EngineWatch<SeenPods>>(
      [api = &*api_, selector = LabelIs(kRunLabel, run_id_) + "," + LabelIs(kRoleLabel, kWorkerRole),
       cursor = PodWatchCursor()](EngineWatch<SeenPods>& watch, std::string* err) mutable {
        return WatchPodsStep(*api, selector, &cursor, [&](const kube::WatchEvent& event) {
          const bool deleted = event.type == "DELETED";
          PodState state = ReadPodState(event.object, deleted);
          watch.Heard([&](SeenPods& seen) {
            if (deleted) seen.deleted.insert(state.worker_id);
            seen.latest[state.worker_id] = std::move(state);
          });
        }, watch.stopping(), err);
      },
      WatchPace{});
  return true;
}

bool KubernetesBackend::Start(const Launch& launch, std::string* err) {
  if (!settings_.host_network && ThisMachineOnly(EndpointHost(launch.bootstrap.master))) {
    *err = "pods cannot connect to the master at " + launch.bootstrap.master +
           ", an address of this machine only: set advertise_host to an address of it that the "
           "cluster's pods reach (with listen_host 0.0.0.0, or that address), host_network: true "
           "when the cluster runs on this machine, or master: cluster";
    return false;
  }
  if (!Connect(launch, err)) return false;
  const std::string& worker_id = launch.bootstrap.worker_id;
  // Rendered on the requests' threads, not this (the master's I/O) one;
  // template_ is read only from Connect on, and outlives them.
  requests_->Create(worker_id, [this, v = WorkerPodValues(settings_, launch.bootstrap, launch.resources,
                                                          CommandLineAtOwnPath(), api_->namespace_name(),
                                                          secret_->uid())](nlohmann::json* manifest, std::string* why) {
    return RenderPod(template_, v, manifest, why);
  });
  if (creating_++ == 0) {
    wave_ = 0;
    wave_start_ = std::chrono::steady_clock::now();
  }
  ++wave_;
  pods_[worker_id] = {PodName(run_id_, worker_id), launch.log_file, "", false, false};
  return true;
}

void KubernetesBackend::Kill(const std::string& worker_id) {
  const auto it = pods_.find(worker_id);
  if (it == pods_.end() || it->second.killed) return;
  it->second.killed = true;
  if (!requests_->Delete(worker_id, {it->second.name, kKillGraceSeconds, it->second.log_file})) {
    unborn_.push_back(
        {worker_id, Because(end_word::kCancelled, "stopped before its pod was created"), ExitStatus::Killed(SIGKILL)});
    pods_.erase(it);
    CreationDone();
  }
}

std::vector<Exit> KubernetesBackend::Poll() {
  std::vector<Exit> exits = std::exchange(unborn_, {});
  queued_.clear();
  if (!requests_) return exits;
  for (const PodRequests::Failure& failure : requests_->TakeFailed()) {
    if (pods_.erase(failure.worker_id))
      exits.push_back({failure.worker_id,
                       Because(end_word::kCannotStart, "its pod could not be created: " + failure.error),
                       ExitStatus::Exited(kCannotCreate)});
    CreationDone();
  }
  for (const std::string& id : requests_->TakeCreated()) {
    if (const auto it = pods_.find(id); it != pods_.end()) it->second.created = true;
    CreationDone();
  }
  for (const std::string& id : requests_->TakeDeleted())
    if (const auto it = ending_.find(id); it != ending_.end()) {
      exits.push_back(std::move(it->second));
      ending_.erase(it);
    }
  std::map<std::string, PodState> seen;
  std::set<std::string> deleted;
  const std::string watch_error = watch_->Read([&](const SeenPods& watched, const std::string& error) {
    for (const auto& [id, pod] : pods_) {
      if (const auto found = watched.latest.find(id); found != watched.latest.end()) seen.insert(*found);
      if (watched.deleted.count(id)) deleted.insert(id);
    }
    return error;
  });
  if (!watch_error.empty() && !warned_watch_)
    log::Warning("cannot watch the run's pods: " + watch_error);
  warned_watch_ = !watch_error.empty();
  for (auto it = pods_.begin(); it != pods_.end();) {
    const auto found = seen.find(it->first);
    if (found == seen.end()) {
      if (!it->second.created) queued_.push_back(it->first);
      ++it;
      continue;
    }
    const PodState& state = found->second;
    Pod& pod = it->second;
    if (!state.ended) {
      if (!state.scheduled) queued_.push_back(it->first);
      if (!state.waiting.empty() && state.waiting != pod.warned)
        log::Warning("worker " + it->first + "'s pod " + pod.name + " waits: " + state.waiting);
      pod.warned = state.waiting;
      ++it;
      continue;
    }
    Exit exit{it->first, state.end, state.exit.value_or(ExitStatus{})};
    if (deleted.count(it->first)) {
      exits.push_back(std::move(exit));
    } else {
      // Reported once its output is saved, as a log a worker wrote is.
      (void)requests_->Delete(it->first, {pod.name, -1, pod.log_file});
      ending_.emplace(it->first, std::move(exit));
    }
    it = pods_.erase(it);
  }
  // The watch forgets pods that are gone and no longer tracked here.
  watch_->Change([&](SeenPods& watched) {
    for (auto id = watched.deleted.begin(); id != watched.deleted.end();) {
      if (pods_.count(*id) || ending_.count(*id)) {
        ++id;
        continue;
      }
      watched.latest.erase(*id);
      id = watched.deleted.erase(id);
    }
  });
  return exits;
}

void KubernetesBackend::KillAll() {
  if (!requests_) return;
  for (auto it = pods_.begin(); it != pods_.end();) {
    Pod& pod = it->second;
    if (pod.killed) {  // its deletion asked already
      ++it;
      continue;
    }
    if (!requests_->Delete(it->first, {pod.name, kKillGraceSeconds, pod.log_file})) {
      it = pods_.erase(it);  // never created
      CreationDone();
      continue;
    }
    pod.killed = true;
    ++it;
  }
  // Gone once the watch saw them deleted, or when it cannot tell.
  const auto deadline = std::chrono::steady_clock::now() + kKillAllWait;
  (void)requests_->WaitIdle(deadline);
  (void)watch_->Wait(deadline - std::chrono::steady_clock::now(), [this](const SeenPods& watched, const std::string& error) {
    if (!error.empty()) return true;
    for (const auto& [worker_id, pod] : pods_)
      if (!watched.deleted.count(worker_id)) return false;
    return true;
  });
  pods_.clear();
  ending_.clear();
  unborn_.clear();
  secret_.reset();
}

}  // namespace fiber::backend
