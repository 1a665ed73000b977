// A run's pods, from worker-pod.yaml and master-pod.yaml and from users'
// edited copies: what fiber sets, what it keeps, values that cannot break
// the document, and the secret kept out of every pod. Against the real API
// server: run_templates_cluster_test.cpp.
#include <doctest/doctest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <vector>

#include "backend/kubernetes/kubernetes_dry_run.hpp"
#include "backend/kubernetes/pod_template.hpp"
#include "support/manifests.hpp"
#include "support/temp_dir.hpp"

using fiber::backend::PodValues;
using fiber::backend::RenderPod;
using nlohmann::json;

namespace {

const json& ContainerNamed(const json& pod, const std::string& name) {
  for (const json& c : pod["spec"]["containers"])
    if (c["name"] == name) return c;
  FAIL("no container " << name);
  static const json none;
  return none;
}

const json& Named(const json& list, const std::string& name) {
  for (const json& entry : list)
    if (entry.value("name", "") == name) return entry;
  FAIL("no entry named " << name << " in " << list.dump());
  static const json none;
  return none;
}

std::string EnvValue(const json& container, const std::string& name) {
  return Named(container["env"], name)["value"].get<std::string>();
}

}  // namespace

TEST_CASE("a worker's pod carries its run's labels, image, command, environment and owner") {
  const json pod = Pod(Load(fiber::backend::kWorkerPodTemplate), Worker());
  CHECK(pod["apiVersion"] == "v1");
  CHECK(pod["kind"] == "Pod");
  CHECK(pod["metadata"]["name"] == "fiber-0123456789ab-w3");
  CHECK(pod["metadata"]["namespace"] == "fiber-test");
  CHECK(pod["metadata"]["labels"] ==
        json({{"fiber.run", "0123456789ab"}, {"fiber.role", "worker"}, {"fiber.worker", "w3"}}));
  CHECK(pod["metadata"]["ownerReferences"] ==
        json::array({{{"apiVersion", "v1"},
                      {"kind", "Secret"},
                      {"name", "fiber-0123456789ab"},
                      {"uid", "6b1f7a2e-0000-4000-8000-000000000001"}}}));
  CHECK(pod["spec"]["restartPolicy"] == "Never");
  CHECK(pod["spec"]["automountServiceAccountToken"] == false);
  const json& c = ContainerNamed(pod, "worker");
  CHECK(c["image"] == "127.0.0.1:35000/fiber/prog:1");
  CHECK(c["command"] == json::array({"/prog"}));
  CHECK(c["args"] == json::array({"--size", "10"}));
  CHECK(EnvValue(c, "FIBER_MASTER_ENDPOINT") == "tcp://10.0.0.1:5555");
  CHECK(EnvValue(c, "FIBER_RUN_ID") == "0123456789ab");
  CHECK_FALSE(c.contains("imagePullPolicy"));
}

TEST_CASE("a pod without an owner yet (a dry run) names none; an image pull policy is set when given") {
  PodValues v = Worker();
  v.owner_uid.clear();
  v.image_pull_policy = "IfNotPresent";
  json pod = Pod(Load(fiber::backend::kWorkerPodTemplate), v);
  CHECK(pod["metadata"]["ownerReferences"][0]["name"] == "fiber-0123456789ab");
  CHECK_FALSE(pod["metadata"]["ownerReferences"][0].contains("uid"));
  CHECK(ContainerNamed(pod, "worker")["imagePullPolicy"] == "IfNotPresent");
  v.owner_name.clear();
  pod = Pod(Load(fiber::backend::kWorkerPodTemplate), v);
  CHECK_FALSE(pod["metadata"].contains("ownerReferences"));
}

TEST_CASE("host_network puts a pod on its node's network with the cluster's DNS; unset keeps the template's") {
  PodValues v = Worker();
  CHECK_FALSE(Pod(Load(fiber::backend::kWorkerPodTemplate), v)["spec"].contains("hostNetwork"));
  v.host_network = true;
  const json spec = Pod(Load(fiber::backend::kWorkerPodTemplate), v)["spec"];
  CHECK(spec["hostNetwork"] == true);
  CHECK(spec["dnsPolicy"] == "ClusterFirstWithHostNet");
}

TEST_CASE("annotations fiber gives replace the template's of the same name and keep the others") {
  fiber::testing::TempDir dir;
  dir.write(fiber::backend::kMasterPodTemplate,
            "kind: Pod\nmetadata: {annotations: {team: rl, prometheus.io/port: '1'}}\n"
            "spec: {containers: [{name: master, image: ''}]}\n");
  PodValues v = Worker();
  v.worker_id.clear();
  v.annotations = {{"prometheus.io/scrape", "true"}, {"prometheus.io/port", "9100"}};
  const json pod = Pod(Load(fiber::backend::kMasterPodTemplate, dir.path()), v);
  CHECK(pod["metadata"]["annotations"] ==
        json({{"team", "rl"}, {"prometheus.io/scrape", "true"}, {"prometheus.io/port", "9100"}}));
  // None given: the template's stay as they are.
  const json metadata = Pod(Load(fiber::backend::kWorkerPodTemplate), Worker())["metadata"];
  CHECK((!metadata.contains("annotations") || metadata["annotations"].empty()));
}

TEST_CASE("cpu, memory and GPUs become requests and limits alike, GPUs as nvidia.com/gpu") {
  PodValues v = Worker();
  v.cpu_millis = 1500;
  v.memory_mib = 2048;
  v.gpu = 2;
  const json resources = ContainerNamed(Pod(Load(fiber::backend::kWorkerPodTemplate), v), "worker")["resources"];
  const json amounts = {{"cpu", "1500m"}, {"memory", "2048Mi"}, {"nvidia.com/gpu", "2"}};
  CHECK(resources["requests"] == amounts);
  CHECK(resources["limits"] == amounts);
}

TEST_CASE("a resource the run leaves 0 keeps what the user's template says") {
  fiber::testing::TempDir dir;
  dir.write(fiber::backend::kWorkerPodTemplate, kMinimalWorker +
                                                 "      resources:\n"
                                                 "        requests: {cpu: 250m, ephemeral-storage: 1Gi}\n"
                                                 "        limits: {memory: 1Gi}\n");
  PodValues v = Worker();
  v.cpu_millis = 0;
  v.memory_mib = 512;
  const json r = ContainerNamed(Pod(Load(fiber::backend::kWorkerPodTemplate, dir.path()), v), "worker")["resources"];
  CHECK(r["requests"] == json({{"cpu", "250m"}, {"ephemeral-storage", "1Gi"}, {"memory", "512Mi"}}));
  CHECK(r["limits"] == json({{"memory", "512Mi"}}));
}

TEST_CASE("the run's secret reaches a pod as a file only it may read, never as a value") {
  const json pod = Pod(Load(fiber::backend::kWorkerPodTemplate), Worker());
  const json& c = ContainerNamed(pod, "worker");
  const json& volume = Named(pod["spec"]["volumes"], "fiber-secret");
  CHECK(volume["secret"] == json({{"secretName", "fiber-0123456789ab"},
                                  {"defaultMode", 0400},
                                  {"items", json::array({{{"key", "client-key"}, {"path", "client_key"}}})}}));
  const json& mount = Named(c["volumeMounts"], "fiber-secret");
  CHECK(mount["readOnly"] == true);
  CHECK(EnvValue(c, "FIBER_CLIENT_KEY_FILE") == fiber::backend::kPodSecretFile);
  CHECK(mount["mountPath"].get<std::string>() + "/client_key" == fiber::backend::kPodSecretFile);
  // The pod names the Secret; its value is in the Secret alone.
  CHECK(pod.dump().find(kSecretValue) == std::string::npos);
  CHECK(fiber::backend::DryRunYaml({pod}).find(kSecretValue) == std::string::npos);
}

TEST_CASE("the secret itself is refused in a pod's environment") {
  PodValues v = Worker();
  v.env["FIBER_CLIENT_KEY"] = kSecretValue;
  json pod;
  std::string err;
  CHECK_FALSE(RenderPod(Load(fiber::backend::kWorkerPodTemplate), v, &pod, &err));
  CHECK(err.find("FIBER_CLIENT_KEY") != std::string::npos);
  CHECK(err.find(kSecretValue) == std::string::npos);
}

TEST_CASE("values with quotes, newlines, colons, braces, hashes and dashes stay data") {
  const std::vector<std::string> hostile = {
      "it's \"quoted\"", "two\nlines\n", "key: value", "{}", "[a, b]", "# not a comment", "- not an item",
      "&anchor", "*alias", "!tag", "| block", "> folded", "%directive", "@at", "`tick", "--- \n...",
      "  leading and trailing  ", "tab\there", "back\\slash", "ünïcødé ✓", "\x01control", "del\x7f", "nel\xc2\x85", "ls\xe2\x80\xa8ps\xe2\x80\xa9", "a: {b: [c]}"};
  PodValues v = Worker();
  v.command = {"/prog"};
  for (std::size_t i = 0; i < hostile.size(); ++i) {
    v.env["X_" + std::to_string(i)] = hostile[i];
    v.command.push_back(hostile[i]);
  }
  v.labels["user.example/team"] = "a: b #c";
  const json pod = Pod(Load(fiber::backend::kWorkerPodTemplate), v);
  const json& c = ContainerNamed(pod, "worker");
  for (std::size_t i = 0; i < hostile.size(); ++i) {
    CAPTURE(hostile[i]);
    CHECK(EnvValue(c, "X_" + std::to_string(i)) == hostile[i]);
    CHECK(c["args"][i] == hostile[i]);
  }
  CHECK(pod["metadata"]["labels"]["user.example/team"] == "a: b #c");
  // Printed as YAML, they read back as the same object, and nothing more.
  const std::string yaml = fiber::backend::DryRunYaml({pod});
  CHECK(ReadBack(yaml) == pod);
  CHECK(YAML::LoadAll(yaml).size() == 1);
  // Printable throughout, as kubectl's reader insists, and no line breaks
  // but "\n" (YAML 1.1 breaks lines at NEL, LS and PS too).
  CHECK(std::all_of(yaml.begin(), yaml.end(), [](unsigned char c) { return c >= 0x20 ? c != 0x7f : c == '\n'; }));
  for (const char* hazard : {"\xc2\x85", "\xe2\x80\xa8", "\xe2\x80\xa9"}) CHECK(yaml.find(hazard) == std::string::npos);
}

TEST_CASE("values that look like numbers, booleans or null stay strings, also printed as YAML") {
  const std::vector<std::string> lookalikes = {"true", "no", "ON", "y", "0400", "0x1F", "1_000", "1e3", ".5",
                                               "-1", "null", "~", "", ".inf", "12:30", "1:20:30.5", "2001-12-14", "=", "<<"};
  PodValues v = Worker();
  for (const std::string& s : lookalikes) v.env["X_" + std::to_string(v.env.size())] = s;
  const json pod = Pod(Load(fiber::backend::kWorkerPodTemplate), v);
  for (const json& entry : ContainerNamed(pod, "worker")["env"]) CHECK(entry["value"].is_string());
  CHECK(ReadBack(fiber::backend::DryRunYaml({pod})) == pod);
}

TEST_CASE("the master's pod runs the program as the run's master, owned by the run") {
  PodValues v = Worker();
  v.worker_id.clear();
  v.cpu_millis = 500;
  const json pod = Pod(Load(fiber::backend::kMasterPodTemplate), v);
  CHECK(pod["metadata"]["name"] == "fiber-0123456789ab-master");
  CHECK(pod["metadata"]["labels"] == json({{"fiber.run", "0123456789ab"}, {"fiber.role", "master"}}));
  CHECK(pod["metadata"]["ownerReferences"][0]["name"] == "fiber-0123456789ab");
  CHECK(pod["spec"]["restartPolicy"] == "Never");
  CHECK(pod["spec"]["serviceAccountName"] == "default");
  const json& c = ContainerNamed(pod, "master");
  CHECK(c["command"] == json::array({"/prog"}));
  CHECK(c["resources"]["limits"]["cpu"] == "500m");
  // The master takes the Secret's key as its workers' key.
  CHECK(EnvValue(c, "FIBER_RUN_KEY_FILE") == fiber::backend::kPodSecretFile);
}

TEST_CASE("a variable given by the pod's own field is a downward API reference, not a value") {
  PodValues v = Worker();
  v.worker_id.clear();
  v.env_from_fields = {{"FIBER_LISTEN_HOST", "status.podIP"}};
  const json pod = Pod(Load(fiber::backend::kMasterPodTemplate), v);
  const json& c = ContainerNamed(pod, "master");
  bool found = false;
  for (const json& e : c["env"])
    if (e["name"] == "FIBER_LISTEN_HOST") {
      found = true;
      CHECK(e["valueFrom"]["fieldRef"]["fieldPath"] == "status.podIP");
      CHECK_FALSE(e.contains("value"));
    }
  CHECK(found);
}

TEST_CASE("a pod without the run's secret has no secret volume, mount or variable") {
  PodValues v = Worker();
  v.secret_name.clear();
  const json pod = Pod(Load(fiber::backend::kMasterPodTemplate), v);
  CHECK(pod["spec"]["volumes"] == json::array());
  CHECK(ContainerNamed(pod, "master")["volumeMounts"] == json::array());
  for (const json& entry : ContainerNamed(pod, "master")["env"]) CHECK(entry["name"] != "FIBER_CLIENT_KEY_FILE");
}

TEST_CASE("a user's edited template keeps its node selector, tolerations, volumes and other additions") {
  fiber::testing::TempDir dir;
  dir.write(fiber::backend::kWorkerPodTemplate, R"(# edited by a user
apiVersion: v1
kind: Pod
metadata:
  labels:
    team: vision
    fiber.run: not-theirs
  annotations:
    example.com/cost-center: "42"
spec:
  serviceAccountName: trainer
  priorityClassName: batch-low
  nodeSelector:
    cloud.google.com/gke-accelerator: nvidia-tesla-t4
  tolerations:
    - key: nvidia.com/gpu
      operator: Exists
      effect: NoSchedule
  containers:
    - name: log-shipper
      image: fluent/fluent-bit:2
    - name: worker
      image: ignored
      env:
        - name: OMP_NUM_THREADS
          value: "4"
        - name: FIBER_MASTER_ENDPOINT
          value: overridden by fiber
      volumeMounts:
        - name: fiber-secret
        - name: data
          mountPath: /data
          readOnly: true
  volumes:
    - name: fiber-secret
    - name: data
      persistentVolumeClaim:
        claimName: training-data
)");
  const json pod = Pod(Load(fiber::backend::kWorkerPodTemplate, dir.path()), Worker());
  const json& spec = pod["spec"];
  CHECK(spec["serviceAccountName"] == "trainer");
  CHECK(spec["priorityClassName"] == "batch-low");
  CHECK(spec["nodeSelector"] == json({{"cloud.google.com/gke-accelerator", "nvidia-tesla-t4"}}));
  CHECK(spec["tolerations"] ==
        json::array({{{"key", "nvidia.com/gpu"}, {"operator", "Exists"}, {"effect", "NoSchedule"}}}));
  CHECK(Named(spec["volumes"], "data")["persistentVolumeClaim"]["claimName"] == "training-data");
  CHECK(Named(spec["volumes"], "fiber-secret")["secret"]["secretName"] == "fiber-0123456789ab");
  CHECK(spec["volumes"].size() == 2);
  CHECK(ContainerNamed(pod, "log-shipper") == json({{"name", "log-shipper"}, {"image", "fluent/fluent-bit:2"}}));
  const json& c = ContainerNamed(pod, "worker");
  CHECK(c["image"] == "127.0.0.1:35000/fiber/prog:1");
  CHECK(EnvValue(c, "OMP_NUM_THREADS") == "4");
  CHECK(EnvValue(c, "FIBER_MASTER_ENDPOINT") == "tcp://10.0.0.1:5555");
  CHECK(c["env"].size() == 4);  // OMP_NUM_THREADS, FIBER_MASTER_ENDPOINT, FIBER_RUN_ID, FIBER_CLIENT_KEY_FILE
  CHECK(Named(c["volumeMounts"], "data")["mountPath"] == "/data");
  CHECK(c["volumeMounts"].size() == 2);
  CHECK(pod["metadata"]["labels"] == json({{"team", "vision"},
                                           {"fiber.run", "0123456789ab"},
                                           {"fiber.role", "worker"},
                                           {"fiber.worker", "w3"}}));
  CHECK(pod["metadata"]["annotations"]["example.com/cost-center"] == "42");
}

TEST_CASE("a worker's pod needs an image, from the run or from the template") {
  PodValues v = Worker();
  v.image.clear();
  json pod;
  std::string err;
  CHECK_FALSE(RenderPod(Load(fiber::backend::kWorkerPodTemplate), v, &pod, &err));
  CHECK(err == "built-in worker-pod.yaml: spec.containers[worker] has no image, and the run gives none");
  fiber::testing::TempDir dir;
  dir.write(fiber::backend::kWorkerPodTemplate, kMinimalWorker + "      image: registry.example/own:1\n");
  CHECK(ContainerNamed(Pod(Load(fiber::backend::kWorkerPodTemplate, dir.path()), v), "worker")["image"] ==
        "registry.example/own:1");
}

TEST_CASE("text that is not UTF-8 is refused, naming where it is") {
  PodValues v = Worker();
  v.env["BAD"] = "\xff\xfe";
  json pod;
  std::string err;
  CHECK_FALSE(RenderPod(Load(fiber::backend::kWorkerPodTemplate), v, &pod, &err));
  CHECK(err.find("spec.containers[0].env") != std::string::npos);
  CHECK(err.find("not UTF-8") != std::string::npos);
}
