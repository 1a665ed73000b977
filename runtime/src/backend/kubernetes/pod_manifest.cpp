#include "backend/kubernetes/pod_manifest.hpp"

#include <cmath>
#include <set>

#include "backend/kubernetes/run_secret.hpp"
#include "config/host_port.hpp"
#include "config/setting_table.hpp"
#include "config/variables.hpp"

namespace fiber::backend {

namespace {

// Settings that name things of this machine, or that fiber run has applied
// already: not handed to the master in its pod.
const std::set<std::string> kNotForThePod = {"kubeconfig", "context", "templates", "profile",
                                             "master", "image_files"};

}  // namespace

PodValues WorkerPodValues(const config::Settings& settings, const worker::Bootstrap& bootstrap,
                          const Resources& resources, std::vector<std::string> command,
                          const std::string& namespace_name, const std::string& owner_uid) {
  PodValues v;
  v.run_id = bootstrap.run_id;
  v.worker_id = bootstrap.worker_id;
  v.namespace_name = namespace_name;
  v.image = settings.image;
  v.command = std::move(command);
  for (const auto& [key, value] : worker::ToEnvironmentWithSecretFile(bootstrap, kPodSecretFile))
    v.env[key] = value;
  v.secret_name = RunObjectName(bootstrap.run_id);
  v.secret_key = kClientKeyItem;
  v.cpu_millis = static_cast<int>(std::lround(resources.cpu * 1000));
  v.memory_mib = resources.memory_mb;
  v.gpu = resources.gpu;
  v.host_network = settings.host_network;
  v.owner_name = v.secret_name;
  v.owner_uid = owner_uid;
  return v;
}

PodValues MasterPodValues(const config::Resolved& resolved, const std::string& run_id,
                          std::vector<std::string> command, const std::vector<std::string>& env,
                          const std::map<std::string, std::string>& templates,
                          const std::string& namespace_name, const std::string& owner_uid) {
  const config::Settings& settings = resolved.settings;
  PodValues v;
  v.run_id = run_id;
  v.namespace_name = namespace_name;
  v.image = settings.image;
  v.command = std::move(command);
  for (const config::Setting& s : config::Table())
    if (!kNotForThePod.count(s.key) && !s.kind.show(settings).empty()) v.env[s.variable] = s.kind.show(settings);
  if (!namespace_name.empty()) v.env[config::FindSetting("namespace")->variable] = namespace_name;
  v.env[config::kRunIdVariable] = run_id;
  for (const std::string& kv : env) v.env[kv.substr(0, kv.find('='))] = kv.substr(kv.find('=') + 1);
  // Where it listens, and what its workers are told.
  if (MasterListensOnPodAddress(resolved)) {
    const char* listen_host = config::FindSetting("listen_host")->variable;
    v.env.erase(listen_host);
    v.env.erase(config::FindSetting("advertise_host")->variable);
    v.env_from_fields[listen_host] = "status.podIP";
  }
  // Prometheus's usual pod annotations, so a cluster's Prometheus finds
  // the master's /metrics (the metrics setting). ":PORT" (loopback
  // elsewhere) is every address of the pod on the pod network: the pod's
  // own, which Prometheus scrapes.
  std::string metrics_host;
  int metrics_port = 0;
  std::string unused;
  if (!settings.metrics.empty() && config::ParseHostPort(settings.metrics, &metrics_host, &metrics_port, &unused)) {
    if (settings.metrics.front() == ':' && MasterListensOnPodAddress(resolved))
      v.env[config::FindSetting("metrics")->variable] = "0.0.0.0" + settings.metrics;
    v.annotations["prometheus.io/scrape"] = "true";
    v.annotations["prometheus.io/port"] = std::to_string(metrics_port);
    v.annotations["prometheus.io/path"] = "/metrics";
  }
  v.secret_name = RunObjectName(run_id);
  v.secret_key = kClientKeyItem;
  for (const auto& [name, text] : templates)
    v.secret_files[name] = PodTemplatePath(name);
  if (!templates.empty()) v.env[config::FindSetting("templates")->variable] = PodTemplatesDir();
  v.host_network = settings.host_network;
  v.owner_name = v.secret_name;
  v.owner_uid = owner_uid;
  return v;
}

bool MasterListensOnPodAddress(const config::Resolved& resolved) {
  return !resolved.settings.host_network || resolved.sources.at("listen_host") == "default";
}

bool TemplatesForMasterPod(const config::Settings& settings, std::map<std::string, std::string>* templates,
                           std::string* err) {
  templates->clear();
  if (settings.templates.empty()) return true;
  Template worker;
  if (!LoadTemplate(kWorkerPodTemplate, settings.templates, &worker, err)) return false;
  if (worker.origin.rfind("built-in ", 0) != 0) (*templates)[worker.name] = worker.text;
  return true;
}

}  // namespace fiber::backend
