#include "cluster_master.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <optional>
#include <thread>

#include "backend/kubernetes/pod_manifest.hpp"
#include "backend/kubernetes/pod_state.hpp"
#include "backend/kubernetes/run_pods.hpp"
#include "backend/labels.hpp"
#include "background_thread.hpp"
#include "os/descriptor.hpp"
#include "os/exit_status.hpp"
#include "commands.hpp"
#include "runs/run_dir.hpp"
#include "supervisor.hpp"
#include "wire/credentials.hpp"

namespace fiber::cli {

namespace {

using Clock = std::chrono::steady_clock;

// The master's pod as the watch last saw it. Thread-safe.
class PodWatch {
 public:
  PodWatch(const kube::ApiClient& api, const std::string& run_id) : api_(api), run_id_(run_id) {
    thread_ = StartBackgroundThread([this] { Watch(); }, [this](const std::string& what) {
      Failed("an internal error (" + what + ")");
    });
  }
  ~PodWatch() {
    stop_ = true;
    thread_.join();
  }
  struct Seen {
    backend::PodState state;
    bool seen = false;     // the watch has reported the pod
    bool deleted = false;  // ... and then its deletion
    std::string error;     // why the watch fails, until it works again
  };
  /// What is known after waiting up to timeout for news.
  Seen Wait(std::chrono::milliseconds timeout) {
    std::unique_lock<std::mutex> lock(mu_);
    changed_.wait_for(lock, timeout, [&] { return news_; });
    news_ = false;
    return seen_;
  }

 private:
  void Watch() {
    const auto on_event = [this](const kube::WatchEvent& event) {
      std::lock_guard<std::mutex> lock(mu_);
      const backend::PodState state = backend::ReadPodState(event.object);
      // A deleted pod keeps the last state it was seen in with an exit code.
      if (!(event.type == "DELETED" && seen_.state.exit && !state.exit)) seen_.state = state;
      seen_.seen = true;
      seen_.deleted = seen_.deleted || event.type == "DELETED";
      seen_.error.clear();
      news_ = true;
      changed_.notify_all();
    };
    backend::WatchPods(api_,
                       backend::LabelIs(backend::kRunLabel, run_id_) + "," +
                           backend::LabelIs(backend::kRoleLabel, backend::kMasterRole),
                       on_event, [this](const std::string& why) { Failed(why); }, stop_);
  }
  void Failed(const std::string& why) {
    std::lock_guard<std::mutex> lock(mu_);
    seen_.error = why;
    news_ = true;
    changed_.notify_all();
  }

  const kube::ApiClient& api_;
  const std::string run_id_;
  std::atomic<bool> stop_{false};
  std::mutex mu_;
  std::condition_variable changed_;
  Seen seen_;
  bool news_ = false;
  std::thread thread_;
};

// The master's output, as it comes, to stdout (unless detached) and the
// run's master log, from once its container runs until it ends.
class OutputFollower {
 public:
  OutputFollower(const kube::ApiClient& api, const std::string& pod, int master_log, bool to_stdout)
      : api_(api), pod_(pod), master_log_(master_log), to_stdout_(to_stdout) {
    thread_ = StartBackgroundThread(
        [this] {
          kube::ApiError e;
          (void)api_.FollowPodLog(pod_, backend::kMasterRole, [this](std::string_view chunk) {
            if (to_stdout_) os::WriteAll(1, chunk);  // a closed output loses the text, not the run
            os::WriteAll(master_log_, chunk);
            return true;
          }, &stop_, &e);
          done_ = true;
        },
        [this](const std::string& what) {
          Error("stopped following the master's output: an internal error (" + what + ")");
          done_ = true;
        });
  }
  ~OutputFollower() {
    stop_ = true;
    thread_.join();
  }
  bool done() const { return done_; }

 private:
  const kube::ApiClient& api_;
  const std::string pod_;
  const int master_log_;
  const bool to_stdout_;
  std::atomic<bool> stop_{false}, done_{false};
  std::thread thread_;
};

}  // namespace

int SuperviseClusterMaster(const ClusterMasterOptions& o, std::string* err) {
  const config::Settings& settings = o.resolved.settings;
  const auto say = [&](const std::string& line) {
    if (!o.quiet && !o.detached) os::WriteAll(2, "fiber: " + line + "\n");
  };
  std::optional<kube::ApiClient> api;
  backend::Template tmpl;
  if (!backend::ConnectCluster(settings, &api, err) ||
      !backend::LoadTemplate(backend::kMasterPodTemplate, settings.templates, &tmpl, err))
    return kFiberError;
  wire::Credentials keys;
  std::map<std::string, std::string> templates;
  std::string uid;
  bool made = false;
  if (!wire::Credentials::Generate(&keys, err) || !backend::TemplatesForMasterPod(settings, &templates, err) ||
      !backend::MakeRunSecret(*api, settings.templates, o.run_id, keys.client_secret, templates, &uid, &made, err))
    return kFiberError;
  nlohmann::json manifest, object;
  if (!backend::RenderPod(tmpl,
                          backend::MasterPodValues(o.resolved, o.run_id, o.command, o.env, templates,
                                                   api->namespace_name(), uid),
                          &manifest, err))
    return kFiberError;

  // Signals are taken from here on, so none ends fiber run with the pod made.
  const int signals = TakeStopSignals();
  const int master_log = runs::OpenToAppend(runs::MasterLogPath(o.run_dir));
  if (signals < 0 || master_log < 0) {
    *err = std::string("cannot set up the run: ") + std::strerror(errno);
    if (signals >= 0) ::close(signals);
    return kFiberError;
  }
  kube::ApiError e;
  if (!api->Create(kube::kPods, manifest, &object, &e)) {
    *err = e.message;
    ::close(master_log);
    ::close(signals);
    return kFiberError;
  }
  const std::string pod = backend::MasterPodName(o.run_id);
  say("the master runs in pod " + pod);

  PodWatch watch(*api, o.run_id);
  std::optional<OutputFollower> output;
  std::string waiting, watch_error;
  int stops = 0;
  int status = kFiberError;
  auto deadline = Clock::time_point::max();  // of the grace period, once one runs
  const auto end_now = [&] {
    if (!api->Delete(kube::kPods, pod, &e, 0) && e.kind != kube::ApiErrorKind::kNotFound)
      say("cannot delete the master's pod: " + e.message);
  };
  for (;;) {
    const PodWatch::Seen seen = watch.Wait(std::chrono::milliseconds(100));
    signalfd_siginfo info;
    while (::read(signals, &info, sizeof info) == sizeof info) {
      const int sig = static_cast<int>(info.ssi_signo);
      if (++stops == 1) {
        const long grace = static_cast<long>(o.grace.count() / 1000);
        say(std::string("stopping the run (") + strsignal(sig) + " again to force)");
        if (!api->Delete(kube::kPods, pod, &e, grace) && e.kind != kube::ApiErrorKind::kNotFound)
          say("cannot delete the master's pod: " + e.message);
        deadline = Clock::now() + o.grace + std::chrono::seconds(5);
      } else {
        say("ending the run now");
        end_now();
      }
    }
    if (seen.error != watch_error && !seen.error.empty()) say("cannot watch the master's pod: " + seen.error);
    watch_error = seen.error;
    const backend::PodState& state = seen.state;
    if (!state.waiting.empty() && state.waiting != waiting) say("the master's pod " + pod + " waits: " + state.waiting);
    waiting = state.waiting;
    const bool started = state.phase == "Running" || state.exit;
    if (started && !output) output.emplace(*api, pod, master_log, !o.detached);
    if (state.ended || seen.deleted) {
      // Its output to the end: the log's stream ends with the container.
      for (int i = 0; output && !output->done() && i < 50; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      if (state.exit) {
        status = state.exit->code();
      } else if (stops > 0) {
        status = ExitStatus::Killed(SIGTERM).code();  // deleted as asked before it could say how it ended
      } else {
        *err = "the master's pod " + pod + " " +
               (state.ended ? "ended: " + state.how : std::string("was deleted before its program ended"));
      }
      break;
    }
    if (Clock::now() > deadline) {
      say("the program did not stop within " + std::to_string(o.grace.count() / 1000.0).substr(0, 4) +
          " s; ending it");
      end_now();
      deadline = Clock::time_point::max();
    }
  }
  output.reset();
  ::close(master_log);
  ::close(signals);
  return status;
}

}  // namespace fiber::cli
