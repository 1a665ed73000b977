#include "backend/kubernetes/kubernetes_master_placement.hpp"

#include <signal.h>

#include <atomic>
#include <thread>
#include <utility>

#include "os/background_thread.hpp"
#include "backend/engine_watch.hpp"
#include "backend/kubernetes/kubernetes_run_records.hpp"
#include "backend/kubernetes/pod_manifest.hpp"
#include "backend/kubernetes/pod_state.hpp"
#include "backend/kubernetes/pod_template.hpp"
#include "backend/kubernetes/run_pods.hpp"
#include "backend/labels.hpp"
#include "os/mutex.hpp"
#include "wire/credentials.hpp"

namespace fiber::backend {

namespace {

// How long past its grace period Kubernetes may take to end the pod.
constexpr std::chrono::seconds kDeletionSlack{5};

// The master's pod as its watch (an EngineWatch) last saw it.
struct SeenMaster {
  PodState state;
  bool deleted = false;  // the watch has reported its deletion
  long events = 0;       // heard so far: a wait ends at the next
};

// The master's output as its container's log streams it, from once the
// container runs until it ends, kept until taken. Thread-safe.
class PodOutput {
 public:
  PodOutput(const kube::ApiClient& api, const std::string& pod) : api_(api), pod_(pod) {
    thread_ = StartBackgroundThread(
        [this] {
          kube::ApiError e;
          (void)api_.FollowPodLog(pod_, kMasterRole, [this](std::string_view chunk) {
            os::MutexLock lock(mu_);
            text_.append(chunk);
            return true;
          }, &stop_, &e);
          done_ = true;
        },
        [this](const std::string& what) {
          os::MutexLock lock(mu_);
          error_ = "stopped following the master's output: an internal error (" + what + ")";
          done_ = true;
        });
  }
  ~PodOutput() {
    stop_ = true;
    thread_.join();
  }
  bool done() const { return done_; }
  std::string Take() {
    os::MutexLock lock(mu_);
    return std::exchange(text_, {});
  }
  /// Why it stopped following before the end; "" when it did not.
  std::string error() const {
    os::MutexLock lock(mu_);
    return error_;
  }

 private:
  const kube::ApiClient& api_;
  const std::string pod_;
  std::atomic<bool> stop_{false}, done_{false};
  mutable os::Mutex mu_;
  std::string text_ FIBER_GUARDED_BY(mu_);
  std::string error_ FIBER_GUARDED_BY(mu_);
  std::thread thread_;
};

// The master's pod, made, as its watch and log say.
class PodMaster : public RunningMaster {
 public:
  PodMaster(kube::ApiClient api, const std::string& run_id, std::chrono::milliseconds grace)
      : api_(std::move(api)),
        pod_(MasterPodName(run_id)),
        grace_(grace),
        watch_([api = &api_, selector = LabelIs(kRunLabel, run_id) + "," + LabelIs(kRoleLabel, kMasterRole),
                cursor = PodWatchCursor()](EngineWatch<SeenMaster>& watch, std::string* err) mutable {
          return WatchPodsStep(*api, selector, &cursor, [&](const kube::WatchEvent& event) {
            const PodState state = ReadPodState(event.object);
            const bool deleted = event.type == "DELETED";
            watch.Heard([&](SeenMaster& seen) {
              // A deleted pod keeps the last state it was seen in with an exit code.
              if (!(deleted && seen.state.exit && !state.exit)) seen.state = state;
              seen.deleted = seen.deleted || deleted;
              ++seen.events;
            });
          }, watch.stopping(), err);
        }, WatchPace{}) {
    words_.started = "the master runs in pod " + pod_;
    words_.name = "the master's pod " + pod_;
    words_.waits = "waits";
  }
  const MasterWords& words() const override { return words_; }
  std::chrono::milliseconds stop_slack() const override { return kDeletionSlack; }

  MasterState Wait(std::chrono::milliseconds timeout) override {
    if (state_.phase == MasterState::Phase::kEnded) return state_;
    (void)watch_.Wait(timeout, [&](const SeenMaster& heard, const std::string&) { return heard.events != events_; });
    const auto [seen, error] = watch_.Read([](const SeenMaster& heard, const std::string& why) {
      return std::make_pair(heard, why);
    });
    events_ = seen.events;
    state_.trouble = !error.empty() ? "cannot watch the master's pod: " + error
                     : output_          ? output_->error()
                                        : "";
    const PodState& pod = seen.state;
    state_.waiting = pod.waiting;
    const bool started = pod.phase == "Running" || pod.exit;
    if (started && !output_) output_.emplace(api_, pod_);
    if (pod.phase == "Running") state_.phase = MasterState::Phase::kRunning;
    if (!pod.ended && !seen.deleted) return state_;
    // Its output to the end: the log's stream ends with the container.
    for (int i = 0; output_ && !output_->done() && i < 50; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    state_.phase = MasterState::Phase::kEnded;
    if (pod.exit) {
      state_.exit = pod.exit;
    } else if (stopped_) {
      state_.exit = ExitStatus::Killed(SIGTERM);  // deleted as asked before it could say how it ended
    } else {
      state_.error = "the master's pod " + pod_ + " " +
                     (pod.ended ? "ended: " + pod.end.text : std::string("was deleted before its program ended"));
    }
    return state_;
  }

  bool Stop(int, std::string* err) override {
    return Delete(static_cast<long>(std::chrono::duration_cast<std::chrono::seconds>(grace_).count()), err);
  }
  bool Kill(std::string* err) override { return Delete(0, err); }

  std::string TakeOutput() override { return output_ ? output_->Take() : ""; }

 private:
  bool Delete(long grace_seconds, std::string* err) {
    stopped_ = true;
    kube::ApiError e;
    if (api_.Delete(kube::kPods, pod_, &e, grace_seconds) || e.kind == kube::ApiErrorKind::kNotFound) return true;
    *err = "cannot delete the master's pod: " + e.message;
    return false;
  }

  const kube::ApiClient api_;
  const std::string pod_;
  const std::chrono::milliseconds grace_;
  MasterWords words_;
  EngineWatch<SeenMaster> watch_;
  long events_ = 0;  // of the watch's, seen by Wait
  std::optional<PodOutput> output_;
  MasterState state_;
  bool stopped_ = false;
};

}  // namespace

std::unique_ptr<RunningMaster> KubernetesMasterPlacement::Start(const MasterLaunch& launch, std::string* err) const {
  const config::Settings& settings = launch.resolved.settings;
  std::optional<kube::ApiClient> api;
  Template tmpl;
  if (!ConnectCluster(settings, &api, err) || !LoadTemplate(kMasterPodTemplate, settings.templates, &tmpl, err))
    return nullptr;
  wire::Credentials keys;
  std::map<std::string, std::string> templates;
  std::string uid;
  bool made = false;
  if (!wire::Credentials::Generate(&keys, err) || !TemplatesForMasterPod(settings, &templates, err) ||
      !MakeRunSecret(*api, settings.templates, launch.run_id, keys.client_secret, templates, &uid, &made, err))
    return nullptr;
  nlohmann::json manifest, object;
  if (!RenderPod(tmpl,
                 MasterPodValues(launch.resolved, launch.run_id, launch.command, launch.env, templates,
                                 api->namespace_name(), uid),
                 &manifest, err))
    return nullptr;
  kube::ApiError e;
  if (!api->Create(kube::kPods, manifest, &object, &e)) {
    *err = e.message;
    return nullptr;
  }
  return std::make_unique<PodMaster>(std::move(*api), launch.run_id, launch.grace);
}

bool KubernetesMasterPlacement::State(const RunPlace& run, bool* runs, std::optional<ExitStatus>* exit,
                                      std::string* err) const {
  *runs = false;
  std::optional<kube::ApiClient> api;
  std::vector<RunPod> pods;
  if (!KubernetesRunRecords::Connect(run, &api, err) || !ListRunPods(*api, run.id, &pods, err)) return false;
  for (const RunPod& pod : pods) {
    if (!pod.state.worker_id.empty()) continue;  // a worker's
    *runs = !pod.state.ended;
    if (pod.state.exit) *exit = pod.state.exit;
  }
  return true;
}

bool KubernetesMasterPlacement::Stop(const RunPlace& run, bool force, std::string* err) const {
  std::optional<kube::ApiClient> api;
  if (!KubernetesRunRecords::Connect(run, &api, err)) return false;
  kube::ApiError e;
  const long grace = force ? 0 : static_cast<long>(run.grace_seconds);
  if (api->Delete(kube::kPods, MasterPodName(run.id), &e, grace) || e.kind == kube::ApiErrorKind::kNotFound)
    return true;
  *err = e.message;
  return false;
}

}  // namespace fiber::backend
