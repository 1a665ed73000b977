#include "backend/kubernetes/run_pods.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <functional>
#include <thread>

#include "backend/kubernetes/run_secret.hpp"
#include "backend/labels.hpp"
#include "backend/line_splitter.hpp"
#include "backend/worker_output.hpp"
#include "runs/log_stamps.hpp"
#include "runs/run_dir.hpp"

namespace fiber::backend {

kube::CredentialSearch SearchFor(const config::Settings& settings, const config::Getenv& getenv) {
  kube::CredentialSearch search = kube::SearchFromEnvironment(getenv);
  search.kubeconfig = settings.kubeconfig;
  search.context = settings.context;
  search.namespace_name = settings.namespace_name;
  return search;
}

bool ConnectCluster(const config::Settings& settings, std::optional<kube::ApiClient>* out,
                    std::string* err, const config::Getenv& getenv) {
  const config::Getenv own = config::ProcessEnvironment;
  kube::ClusterAccess access;
  if (!kube::LoadClusterAccess(SearchFor(settings, getenv ? getenv : own), &access, err)) return false;
  out->emplace(std::move(access), kube::RateLimit{static_cast<double>(settings.kube_qps), settings.kube_burst});
  return true;
}

bool ListRunPods(const kube::ApiClient& api, const std::string& run_id, std::vector<RunPod>* out,
                 std::string* err) {
  nlohmann::json list;
  kube::ApiError e;
  if (!api.List(kube::kPods, LabelIs(kRunLabel, run_id), &list, &e)) {
    *err = e.message;
    return false;
  }
  out->clear();
  for (const auto& pod : list["items"])
    out->push_back({pod["metadata"].value("name", ""), ReadPodState(pod),
                    pod["metadata"].contains("deletionTimestamp")});
  return true;
}

namespace {

// How many pods' logs RemoveRun reads at once (each within the client's
// rate limit): never a thread per pod.
constexpr std::size_t kLogReaders = 8;

// each(0) .. each(n - 1), on up to threads threads at once.
void ForEachAtOnce(std::size_t n, std::size_t threads, const std::function<void(std::size_t)>& each) {
  std::atomic<std::size_t> next{0};
  const auto serve = [&] {
    for (std::size_t i; (i = next++) < n;) each(i);
  };
  std::vector<std::thread> pool;
  for (std::size_t t = 1; t < std::min(n, threads); ++t) pool.emplace_back(serve);
  serve();
  for (std::thread& t : pool) t.join();
}

std::string ObjectName(const nlohmann::json& pod) {
  const nlohmann::json& metadata = pod.contains("metadata") ? pod["metadata"] : nlohmann::json();
  return metadata.is_object() ? metadata.value("name", "") : "";
}

nlohmann::json PodLabels(const nlohmann::json& pod) {
  if (!pod.contains("metadata") || !pod["metadata"].is_object()) return nlohmann::json::object();
  return pod["metadata"].value("labels", nlohmann::json::object());
}

}  // namespace

bool WatchPodsStep(const kube::ApiClient& api, const std::string& label_selector, PodWatchCursor* cursor,
                   const std::function<void(const kube::WatchEvent&)>& on_event, const std::atomic<bool>& stop,
                   std::string* err) {
  kube::ApiError e;
  if (cursor->version.empty()) {
    nlohmann::json list;
    if (!api.List(kube::kPods, label_selector, &list, &e)) {
      *err = e.message;
      return false;
    }
    std::map<std::string, nlohmann::json> listed;
    for (auto& pod : list["items"]) {
      listed[ObjectName(pod)] = PodLabels(pod);
      on_event({"ADDED", std::move(pod)});
    }
    // Deleted while nobody watched: no event will say so.
    for (auto& [name, labels] : cursor->present)
      if (!listed.count(name)) on_event({"DELETED", {{"metadata", {{"name", name}, {"labels", std::move(labels)}}}}});
    cursor->present = std::move(listed);
    if (list["metadata"].is_object()) cursor->version = list["metadata"].value("resourceVersion", "");
    if (stop || cursor->version.empty()) return true;
  }
  kube::WatchOptions options;
  options.label_selector = label_selector;
  options.cancel = &stop;
  options.resource_version = cursor->version;
  const auto each = [&](const kube::WatchEvent& event) {
    if (event.type == "DELETED") {
      cursor->present.erase(ObjectName(event.object));
    } else {
      cursor->present[ObjectName(event.object)] = PodLabels(event.object);
    }
    on_event(event);
    return !stop;
  };
  if (api.Watch(kube::kPods, options, each, &cursor->version, &e)) return true;
  if (e.kind == kube::ApiErrorKind::kGone) {
    cursor->version.clear();
    return true;
  }
  *err = e.message;
  return false;
}

bool MakeRunSecret(const kube::ApiClient& api, const std::string& templates_dir,
                   const std::string& run_id, const std::string& client_secret,
                   const std::map<std::string, std::string>& files, std::string* uid, bool* made,
                   std::string* err) {
  Template tmpl;
  if (!LoadTemplate(kRunTemplate, templates_dir, &tmpl, err)) return false;
  RunValues values;
  values.run_id = run_id;
  values.namespace_name = api.namespace_name();
  values.secret_key = kClientKeyItem;
  values.secret_value = client_secret;
  values.files = files;
  nlohmann::json manifest, object;
  if (!RenderRun(tmpl, values, &manifest, err)) return false;
  kube::ApiError e;
  *made = api.Create(kube::kSecrets, manifest, &object, &e);
  if (!*made && !(e.kind == kube::ApiErrorKind::kAlreadyExists &&
                  api.Get(kube::kSecrets, RunObjectName(run_id), &object, &e))) {
    *err = e.message;
    return false;
  }
  *uid = object["metadata"].value("uid", "");
  return true;
}

bool RunSecretExists(const kube::ApiClient& api, const std::string& run_id, bool* exists,
                     std::string* err) {
  nlohmann::json object;
  kube::ApiError e;
  *exists = api.Get(kube::kSecrets, RunObjectName(run_id), &object, &e);
  if (*exists || e.kind == kube::ApiErrorKind::kNotFound) return true;
  *err = e.message;
  return false;
}

void SavePodLog(const kube::ApiClient& api, const std::string& pod, const std::string& container,
                const std::string& worker_id, const std::string& log_file) {
  WorkerOutput file(worker_id, log_file);
  // Saved as its pod goes, long after its lines came: their times are the
  // API server's, kept as the log's stamps (runs/log_stamps.hpp), written
  // before the lines so that none stamped later by fiber run goes first.
  const std::string stamps = log_file.empty() ? "" : runs::StampsPath(log_file);
  long long end = file.kept();
  std::string text;
  std::vector<runs::LogStamp> times;
  LineSplitter lines([&](std::string_view line) {
    runs::WallClock::time_point at;
    const bool timed = runs::TakeTime(&line, &at);
    text.append(line).append("\n");
    end += static_cast<long long>(line.size()) + 1;
    if (!timed) return;
    if (!times.empty() && times.back().at == at) times.pop_back();  // one stamp for lines of one time
    times.push_back({end, at});
  });
  const auto save = [&] {
    if (!stamps.empty())
      for (const runs::LogStamp& stamp : times) runs::AppendStamp(stamps, stamp);
    file.Write(text);
    text.clear();
    times.clear();
  };
  kube::ApiError e;
  (void)api.PodLog(pod, container, [&](std::string_view chunk) {
    lines.Feed(chunk);
    save();
    return true;
  }, &e, true);
  lines.Finish();
  save();
}

bool RemoveRun(const kube::ApiClient& api, const std::string& run_id, const std::string& run_dir,
               int* removed, std::string* err) {
  *removed = 0;
  std::vector<RunPod> pods;
  if (!ListRunPods(api, run_id, &pods, err)) return false;
  // Logs first: deleting the Secret has the garbage collector delete the
  // pods, and their output with them. Only those no one saved: a pod being
  // deleted had its log saved by whoever deletes it, a file that exists
  // was saved already, and a pending pod's container never wrote.
  std::vector<const RunPod*> unsaved;
  if (!run_dir.empty()) (void)runs::MakePrivateDirs(runs::WorkersDir(run_dir), err);
  if (!run_dir.empty())
    for (const RunPod& pod : pods)
      if (!pod.state.worker_id.empty() && !pod.deleting && pod.state.phase != "Pending" &&
          ::access(runs::WorkerLogPath(run_dir, pod.state.worker_id).c_str(), F_OK) != 0)
        unsaved.push_back(&pod);
  ForEachAtOnce(unsaved.size(), kLogReaders, [&](std::size_t i) {
    SavePodLog(api, unsaved[i]->name, kWorkerRole, unsaved[i]->state.worker_id,
               runs::WorkerLogPath(run_dir, unsaved[i]->state.worker_id));
  });
  kube::ApiError e;
  bool ok = true;
  if (!api.Delete(kube::kSecrets, RunObjectName(run_id), &e) &&
      e.kind != kube::ApiErrorKind::kNotFound) {
    *err = e.message;
    ok = false;
  }
  // Every pod of the run with one request; a Role without that verb
  // (deletecollection) has each deleted on its own.
  if (pods.empty() || api.DeleteCollection(kube::kPods, LabelIs(kRunLabel, run_id), &e)) {
    *removed = static_cast<int>(pods.size());
    return ok;
  }
  if (e.kind != kube::ApiErrorKind::kForbidden) {
    *err = e.message;
    return false;
  }
  for (const RunPod& pod : pods) {
    // One being deleted goes anyway: asking again would only cost a
    // request per pod (thousands when a large run's master stopped them).
    if (pod.deleting || api.Delete(kube::kPods, pod.name, &e) || e.kind == kube::ApiErrorKind::kNotFound) {
      ++*removed;
    } else {
      *err = e.message;
      ok = false;
    }
  }
  return ok;
}

}  // namespace fiber::backend
