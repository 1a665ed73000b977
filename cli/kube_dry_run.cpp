#include "kube_dry_run.hpp"

#include <cstdlib>

#include "kube/kubeconfig.hpp"
#include "kube/manifest.hpp"
#include "runs/run_dir.hpp"
#include "worker/bootstrap.hpp"

namespace fiber::cli {

bool KubernetesDryRun(const config::Settings& settings, const std::vector<std::string>& program,
                      std::string* yaml, std::string* err) {
  // The namespace the run would use: the kubeconfig's, when there is one.
  std::string namespace_name = settings.namespace_name;
  kube::ClusterAccess access;
  std::string unused;
  const config::Getenv getenv = [](const char* name) -> const char* { return std::getenv(name); };
  if (kube::LoadClusterAccess(kube::SearchFor(settings, getenv), &access, &unused))
    namespace_name = access.namespace_name;

  worker::Bootstrap b;
  b.run_id = runs::NewRunId();
  b.worker_id = "w1";
  b.master = "tcp://" + settings.listen_host + ":" +
             (settings.listen_port ? std::to_string(settings.listen_port) : "PORT");
  b.server_public = "<the run's public key, made at its start>";
  b.heartbeat_interval = settings.heartbeat_interval;
  b.heartbeat_timeout = settings.heartbeat_timeout;
  b.start_timeout = settings.start_timeout;

  kube::Template run_template, pod_template;
  if (!kube::LoadTemplate(kube::kRunTemplate, settings.templates, &run_template, err) ||
      !kube::LoadTemplate(kube::kWorkerPodTemplate, settings.templates, &pod_template, err))
    return false;
  kube::RunValues run;
  run.run_id = b.run_id;
  run.namespace_name = namespace_name;
  run.secret_key = kube::kClientKeyItem;
  run.secret_value = "<redacted>";
  kube::PodValues pod;
  pod.run_id = b.run_id;
  pod.worker_id = b.worker_id;
  pod.namespace_name = namespace_name;
  pod.image = !settings.image.empty() ? settings.image
              : settings.registry.empty()
                  ? "<no image: set registry or image>"
                  : settings.registry + ":<the program, packaged and pushed when the run starts>";
  pod.command = program;
  for (const auto& [key, value] : worker::ToEnvironmentWithSecretFile(b, kube::kPodSecretFile))
    pod.env[key] = value;
  pod.secret_name = kube::RunObjectName(b.run_id);
  pod.secret_key = kube::kClientKeyItem;
  pod.cpu_millis = settings.cpu_millis;
  pod.memory_mib = settings.memory_mib;
  pod.gpu = settings.gpu;
  pod.host_network = settings.host_network;
  pod.owner_name = kube::RunObjectName(b.run_id);
  nlohmann::json secret_object, pod_object;
  if (!kube::RenderRun(run_template, run, &secret_object, err) ||
      !kube::RenderPod(pod_template, pod, &pod_object, err))
    return false;
  *yaml = kube::DryRunYaml({secret_object, pod_object});
  return true;
}

}  // namespace fiber::cli
