// What fiber puts into a run's pods: a worker's (its bootstrap, the key as
// the Secret's file, the pool's resources) and the master's with master:
// cluster (the run's settings, nothing of this machine, its own address).
// The rendering of those values into a pod: pod_template_test.cpp.
#include <doctest/doctest.h>

#include <map>

#include "backend/kubernetes/pod_manifest.hpp"
#include "backend/kubernetes/run_secret.hpp"
#include "support/temp_dir.hpp"

using fiber::backend::PodValues;
using fiber::testing::TempDir;

namespace {

// Resolved from the flags given alone: no files, no environment.
fiber::config::Resolved Resolve(const std::map<std::string, std::string>& flags) {
  fiber::config::Inputs inputs;
  inputs.getenv = [](const char*) -> const char* { return nullptr; };
  inputs.flags = flags;
  fiber::config::Resolved resolved;
  std::string err;
  INFO(err);
  REQUIRE(fiber::config::Resolve(inputs, &resolved, &err));
  return resolved;
}

std::string EnvOf(const PodValues& v, const std::string& name) {
  const auto it = v.env.find(name);
  return it == v.env.end() ? "<unset>" : it->second;
}

}  // namespace

TEST_CASE("a worker's pod is told its bootstrap, reads the key from the Secret, and asks for its pool's resources") {
  fiber::config::Settings settings;
  settings.image = "registry.test/ada/train@sha256:0";
  settings.host_network = true;
  fiber::worker::Bootstrap b;
  b.run_id = "0123456789ab";
  b.worker_id = "w3";
  b.master = "tcp://trainer.lab:7000";
  b.client_secret = "the-secret";
  fiber::Resources resources;
  resources.cpu = 1.5;
  resources.memory_mb = 512;
  resources.gpu = 1;
  const PodValues v =
      fiber::backend::WorkerPodValues(settings, b, resources, {"/opt/train", "--lr"}, "team-a", "uid-1");
  CHECK(v.run_id == b.run_id);
  CHECK(v.worker_id == "w3");
  CHECK(v.namespace_name == "team-a");
  CHECK(v.image == settings.image);
  CHECK(v.command == std::vector<std::string>{"/opt/train", "--lr"});
  CHECK(EnvOf(v, "FIBER_MASTER_ENDPOINT") == "tcp://trainer.lab:7000");
  CHECK(EnvOf(v, "FIBER_CLIENT_KEY_FILE") == fiber::backend::kPodSecretFile);
  CHECK(EnvOf(v, "FIBER_WORKER_ID") == "w3");
  for (const auto& [name, value] : v.env) CHECK(value.find("the-secret") == std::string::npos);
  CHECK(v.secret_name == fiber::backend::RunObjectName(b.run_id));
  CHECK(v.secret_key == fiber::backend::kClientKeyItem);
  CHECK(v.cpu_millis == 1500);
  CHECK(v.memory_mib == 512);
  CHECK(v.gpu == 1);
  CHECK(v.host_network);
  CHECK(v.owner_name == v.secret_name);
  CHECK(v.owner_uid == "uid-1");
}

TEST_CASE("the master's pod gets the run's settings and --env, nothing of this machine, and its pod's address") {
  const fiber::config::Resolved resolved =
      Resolve({{"backend", "kubernetes"}, {"master", "cluster"}, {"kubeconfig", "/home/ada/.kube/config"},
               {"context", "lab"}, {"prefetch", "4"}});
  const PodValues v = fiber::backend::MasterPodValues(resolved, "0123456789ab", {"/opt/train"}, {"SEED=7", "A=b=c"},
                                                      {}, "team-a", "");
  CHECK(v.worker_id.empty());
  CHECK(EnvOf(v, "FIBER_BACKEND") == "kubernetes");
  CHECK(EnvOf(v, "FIBER_PREFETCH") == "4");
  CHECK(EnvOf(v, "FIBER_NAMESPACE") == "team-a");
  CHECK(EnvOf(v, "FIBER_RUN_ID") == "0123456789ab");
  CHECK(EnvOf(v, "SEED") == "7");
  CHECK(EnvOf(v, "A") == "b=c");
  // The cluster is reached from inside; the master is where it runs.
  CHECK(EnvOf(v, "FIBER_KUBECONFIG") == "<unset>");
  CHECK(EnvOf(v, "FIBER_CONTEXT") == "<unset>");
  CHECK(EnvOf(v, "FIBER_MASTER") == "<unset>");
  CHECK(EnvOf(v, "FIBER_LISTEN_HOST") == "<unset>");
  CHECK(v.env_from_fields.at("FIBER_LISTEN_HOST") == "status.podIP");
  CHECK(v.secret_name == fiber::backend::RunObjectName("0123456789ab"));
  CHECK(v.secret_files.empty());

  // On its node's network, a listen_host the user gave is kept.
  const PodValues own = fiber::backend::MasterPodValues(
      Resolve({{"listen_host", "127.0.0.1"}, {"host_network", "true"}}), "0123456789ab", {"/opt/train"}, {}, {}, "", "");
  CHECK(EnvOf(own, "FIBER_LISTEN_HOST") == "127.0.0.1");
  CHECK(own.env_from_fields.empty());
  // On the pod network, this machine's addresses say nothing of the pod's.
  const PodValues pod = fiber::backend::MasterPodValues(
      Resolve({{"listen_host", "10.231.12.1"}, {"advertise_host", "trainer.lab"}}), "0123456789ab", {"/opt/train"},
      {}, {}, "", "");
  CHECK(EnvOf(pod, "FIBER_LISTEN_HOST") == "<unset>");
  CHECK(EnvOf(pod, "FIBER_ADVERTISE_HOST") == "<unset>");
  CHECK(pod.env_from_fields.at("FIBER_LISTEN_HOST") == "status.podIP");
}

TEST_CASE("with the metrics setting, the master's pod carries Prometheus's scrape annotations") {
  const PodValues v = fiber::backend::MasterPodValues(Resolve({{"metrics", ":9464"}}), "0123456789ab",
                                                      {"/opt/train"}, {}, {}, "", "");
  CHECK(v.annotations == std::map<std::string, std::string>{{"prometheus.io/scrape", "true"},
                                                             {"prometheus.io/port", "9464"},
                                                             {"prometheus.io/path", "/metrics"}});
  CHECK(EnvOf(v, "FIBER_METRICS") == "0.0.0.0:9464");  // every address of its own network, not loopback
  CHECK(EnvOf(fiber::backend::MasterPodValues(Resolve({{"metrics", "10.1.2.3:9464"}}), "0123456789ab",
                                              {"/opt/train"}, {}, {}, "", ""),
              "FIBER_METRICS") == "10.1.2.3:9464");
  // On the node's own network, as it listens there, :PORT stays loopback.
  CHECK(EnvOf(fiber::backend::MasterPodValues(
                  Resolve({{"metrics", ":9464"}, {"listen_host", "10.0.0.9"}, {"host_network", "true"}}),
                  "0123456789ab", {"/opt/train"}, {}, {}, "", ""),
              "FIBER_METRICS") == ":9464");
  CHECK(fiber::backend::MasterPodValues(Resolve({}), "0123456789ab", {"/opt/train"}, {}, {}, "", "")
            .annotations.empty());
}

TEST_CASE("the user's edited worker template reaches the master's pod through the Secret; fiber's own does not") {
  fiber::config::Settings settings;
  std::map<std::string, std::string> templates;
  std::string err;
  REQUIRE(fiber::backend::TemplatesForMasterPod(settings, &templates, &err));
  CHECK(templates.empty());

  TempDir dir;
  dir.write(fiber::backend::kWorkerPodTemplate,
            "kind: Pod\nmetadata: {labels: {team: rl}}\nspec: {containers: [{name: worker, image: ''}]}\n");
  settings.templates = dir.path();
  REQUIRE(fiber::backend::TemplatesForMasterPod(settings, &templates, &err));
  REQUIRE(templates.size() == 1);
  CHECK(templates.begin()->second.find("team: rl") != std::string::npos);
  const PodValues v = fiber::backend::MasterPodValues(Resolve({{"templates", dir.path()}}), "0123456789ab",
                                                      {"/opt/train"}, {}, templates, "", "");
  CHECK(v.secret_files.at(fiber::backend::kWorkerPodTemplate) ==
        fiber::backend::PodTemplatePath(fiber::backend::kWorkerPodTemplate));
  CHECK(EnvOf(v, "FIBER_TEMPLATES") == fiber::backend::PodTemplatesDir());

  dir.write(fiber::backend::kWorkerPodTemplate, "kind: Pod\nspec: {containers: []}\n");
  CHECK_FALSE(fiber::backend::TemplatesForMasterPod(settings, &templates, &err));
  CHECK_MESSAGE(err.find("no container named \"worker\"") != std::string::npos, err);
}
