#include "backend/kubernetes/kubernetes_dry_run.hpp"

#include <cstdlib>

#include "backend/kubernetes/pod_manifest.hpp"
#include "backend/kubernetes/pod_template.hpp"
#include "backend/kubernetes/run_pods.hpp"
#include "backend/kubernetes/run_secret.hpp"
#include "kube/yaml_json.hpp"
#include "runs/run_dir.hpp"
#include "worker/bootstrap.hpp"

namespace fiber::backend {

bool KubernetesDryRun(const config::Resolved& resolved, const std::vector<std::string>& program,
                      const std::vector<std::string>& env, std::string* yaml, std::string* err) {
  const config::Settings& settings = resolved.settings;
  // The namespace the run would use: the kubeconfig's, when there is one.
  std::string namespace_name = settings.namespace_name;
  kube::ClusterAccess access;
  std::string unused;
  if (kube::LoadClusterAccess(SearchFor(settings, config::ProcessEnvironment), &access, &unused))
    namespace_name = access.namespace_name;

  worker::Bootstrap b;
  b.run_id = runs::NewRunId();
  b.worker_id = "w1";
  const bool pod_address = settings.master_in_cluster && MasterListensOnPodAddress(resolved);
  b.master = "tcp://" + (pod_address ? "<the master pod's address>" : config::AdvertisedHost(settings)) +
             ":" + (settings.listen_port ? std::to_string(settings.listen_port) : "PORT");
  b.heartbeat_interval = settings.heartbeat_interval;
  b.heartbeat_timeout = settings.heartbeat_timeout;
  b.start_timeout = settings.start_timeout;

  Template run_template, pod_template, master_template;
  if (!LoadTemplate(kRunTemplate, settings.templates, &run_template, err) ||
      !LoadTemplate(kWorkerPodTemplate, settings.templates, &pod_template, err) ||
      !LoadTemplate(kMasterPodTemplate, settings.templates, &master_template, err))
    return false;
  RunValues run;
  run.run_id = b.run_id;
  run.namespace_name = namespace_name;
  run.secret_key = kClientKeyItem;
  run.secret_value = "<redacted>";
  Resources resources;  // the run's settings, as a pool without its own takes them
  resources.cpu = settings.cpu_millis / 1000.0;
  resources.memory_mb = settings.memory_mib;
  resources.gpu = settings.gpu;
  PodValues pod =
      WorkerPodValues(settings, b, resources, program, namespace_name, /*owner_uid=*/"");
  std::map<std::string, std::string> templates;
  if (settings.master_in_cluster && !TemplatesForMasterPod(settings, &templates, err)) return false;
  run.files = templates;
  PodValues master = MasterPodValues(resolved, b.run_id, program, env, templates, namespace_name, "");
  if (settings.image.empty())
    pod.image = master.image =
        settings.registry.empty()
            ? "<no image: set registry or image>"
            : settings.registry + ":<the program, packaged and pushed when the run starts>";
  std::vector<nlohmann::json> objects(1);
  if (!RenderRun(run_template, run, &objects.back(), err)) return false;
  if (settings.master_in_cluster) {
    objects.emplace_back();
    if (!RenderPod(master_template, master, &objects.back(), err)) return false;
  }
  objects.emplace_back();
  if (!RenderPod(pod_template, pod, &objects.back(), err)) return false;
  *yaml = DryRunYaml(objects);
  return true;
}

std::string DryRunYaml(const std::vector<nlohmann::json>& objects) {
  std::string out;
  for (nlohmann::json object : objects) {
    if (object.value("kind", "") == "Secret")
      for (const char* field : {"data", "stringData"})
        if (object.contains(field) && object[field].is_object())
          for (auto& value : object[field]) value = "<redacted>";
    if (!out.empty()) out += "---\n";
    out += kube::JsonToYaml(object);
  }
  return out;
}

}  // namespace fiber::backend
