// The manifests fiber renders, accepted by a real API server: the cluster
// of test/cluster (test/cluster/README.md), asked with server-side dry run
// (?dryRun=All), so nothing is created; the run's Secret owning its pods,
// created for real and deleted again; and the cluster's kubectl, reading
// YAML as users' manifests are read. Without a running cluster
// ($FIBER_CLUSTER_DIR/cluster.env and an API server that answers) each test
// says so and passes. The rendering itself: pod_template_test.cpp and
// run_secret_test.cpp.
#include <doctest/doctest.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <thread>

#include "http/client.hpp"
#include "kube/kubeconfig.hpp"
#include "backend/kubernetes/kubernetes_dry_run.hpp"
#include "backend/kubernetes/pod_template.hpp"
#include "backend/kubernetes/run_secret.hpp"
#include "kube/yaml_json.hpp"
#include "subprocess.hpp"
#include "support/temp_dir.hpp"
#include "support/test_cluster.hpp"

using nlohmann::json;

namespace {

/// The admin's way into the test cluster, with its kubeconfig's
/// credentials.
struct Cluster {
  std::string server;
  std::string namespace_name;
  std::string registry;       // where the cluster's own images are
  fiber::http::Request base;  // TLS material set

  /// A request whose answer does not matter (a clean-up): no checks.
  void Send(const std::string& method, const std::string& path) const {
    fiber::http::Request r = base;
    r.method = method;
    r.url = server + path;
    fiber::http::Response ignored;
    std::string err;
    (void)fiber::http::Perform(r, &ignored, &err);
  }

  fiber::http::Response Call(const std::string& method, const std::string& path, const json& body = {}) const {
    fiber::http::Request r = base;
    r.method = method;
    r.url = server + path;
    if (!body.is_null()) {
      r.headers = {"Content-Type: application/json", "Accept: application/json"};
      r.body = body.dump();
    }
    fiber::http::Response response;
    std::string err;
    INFO(err);
    REQUIRE(fiber::http::Perform(r, &response, &err));
    return response;
  }
};

std::optional<Cluster> FindClusterQuietly() {
  std::map<std::string, std::string> env = fiber::testing::ReadClusterEnv();
  if (env["FIBER_CLUSTER_ADMIN_KUBECONFIG"].empty()) return std::nullopt;
  fiber::kube::CredentialSearch search;
  search.kubeconfig = env["FIBER_CLUSTER_ADMIN_KUBECONFIG"];
  fiber::kube::ClusterAccess access;
  std::string why;
  Cluster cluster;
  if (!fiber::kube::LoadClusterAccess(search, &access, &why) || !access.Authenticate(&cluster.base, &why))
    return std::nullopt;
  cluster.server = access.server;
  cluster.namespace_name = env["FIBER_CLUSTER_NAMESPACE"].empty() ? "default" : env["FIBER_CLUSTER_NAMESPACE"];
  cluster.registry = env["FIBER_CLUSTER_REGISTRY"];
  cluster.base.timeout_ms = 30000;
  fiber::http::Request health = cluster.base;
  health.url = cluster.server + "/healthz";
  fiber::http::Response response;
  std::string err;
  if (!fiber::http::Perform(health, &response, &err) || response.status != 200) return std::nullopt;
  return cluster;
}

/// The running test cluster, or nothing, saying so.
std::optional<Cluster> FindCluster() {
  std::optional<Cluster> cluster = FindClusterQuietly();
  if (!cluster) MESSAGE("no test cluster answers (test/cluster/up starts one): not checked");
  return cluster;
}

/// Server-side dry run of creating the object: the API server's answer,
/// checked to be 201 Created.
json DryRunCreate(const Cluster& cluster, const std::string& resource, const json& object) {
  const fiber::http::Response r =
      cluster.Call("POST", "/api/v1/namespaces/" + cluster.namespace_name + "/" + resource + "?dryRun=All", object);
  INFO(r.body);
  REQUIRE(r.status == 201);
  return json::parse(r.body);
}

fiber::backend::Template Load(const std::string& name, const std::string& dir = "") {
  fiber::backend::Template t;
  std::string err;
  INFO(err);
  REQUIRE(fiber::backend::LoadTemplate(name, dir, &t, &err));
  return t;
}

fiber::backend::PodValues Worker(const Cluster& cluster, const std::string& owner_uid) {
  fiber::backend::PodValues v;
  v.run_id = "0123456789ab";
  v.worker_id = "w1";
  v.namespace_name = cluster.namespace_name;
  v.image = "127.0.0.1:30500/fiber/prog:1";
  v.image_pull_policy = "IfNotPresent";
  v.command = {"/prog", "it's \"quoted\"", "two\nlines", "key: value", "{}", "# hash", "- dash"};
  v.env = {{"FIBER_MASTER_ENDPOINT", "tcp://127.0.0.1:5555"}, {"HOSTILE", "a: {b: [c]} # d\n- e"}, {"LOOKS_TRUE", "true"}};
  v.labels = {{"example.com/team", "vision"}};
  v.secret_name = fiber::backend::RunObjectName(v.run_id);
  v.secret_key = fiber::backend::kClientKeyItem;
  v.cpu_millis = 250;
  v.memory_mib = 64;
  v.gpu = 1;
  v.owner_name = v.secret_name;
  v.owner_uid = owner_uid;
  return v;
}

/// The run's Secret, as the server would create it; its uid.
std::string RunUid(const Cluster& cluster) {
  fiber::backend::RunValues v;
  v.run_id = "0123456789ab";
  v.namespace_name = cluster.namespace_name;
  v.secret_key = fiber::backend::kClientKeyItem;
  v.secret_value = "not a real key";
  json run;
  std::string err;
  REQUIRE(fiber::backend::RenderRun(Load(fiber::backend::kRunTemplate), v, &run, &err));
  const json created = DryRunCreate(cluster, "secrets", run);
  CHECK(created["metadata"]["labels"]["fiber.role"] == "run");
  return created["metadata"].value("uid", "00000000-0000-4000-8000-000000000000");
}

/// The object kubectl makes of a YAML file (read locally: no server).
json KubectlReads(const std::string& kubectl, const std::string& path) {
  const Child child = spawn({kubectl, "label", "--local", "-f", path, "fiber.test/read=yes", "-o", "json"},
                            {{"KUBECONFIG", "/dev/null"}});
  const std::string out = read_all(child.stdout_fd);
  const std::string errors = read_all(child.stderr_fd);
  INFO(errors);
  REQUIRE(wait_exit(child) == 0);
  json object = json::parse(out);
  object["metadata"]["labels"].erase("fiber.test/read");
  if (object["metadata"]["labels"].empty()) object["metadata"].erase("labels");
  return object;
}

}  // namespace

TEST_CASE("kubectl reads fiber's dry-run YAML as the JSON fiber sends, and a template as fiber does") {
  const std::string kubectl = fiber::testing::ReadClusterEnv()["FIBER_CLUSTER_KUBECTL"];
  if (kubectl.empty()) {
    MESSAGE("no kubectl of the test cluster (test/cluster/up): not checked");
    return;
  }
  fiber::testing::TempDir dir;
  fiber::backend::PodValues v = Worker(Cluster{}, "uid");
  const std::vector<std::string> lookalikes = {"true", "no", "0400", "0x1F", "1e3", "null", "~", "", "12:30",
                                               "2001-12-14", "=", "<<", "del\x7f", "nel\xc2\x85",
                                               "ls\xe2\x80\xa8", "\xef\xbb\xbf" "bom", "\x01" "ctl"};
  for (const std::string& s : lookalikes) v.env["X_" + std::to_string(v.env.size())] = s;
  json pod;
  std::string err;
  REQUIRE(fiber::backend::RenderPod(Load(fiber::backend::kWorkerPodTemplate), v, &pod, &err));
  CHECK(KubectlReads(kubectl, dir.write("pod.yaml", fiber::backend::DryRunYaml({pod}))) == pod);

  const std::string tricky =
      "apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec:\n  x: {octal: 0400, hex: 0x10, bin: 0b101, "
      "under: 1_000, exp: 1e3, half: .5, yes: yes, Off: Off, nv: N, tilde: ~, empty: , cpu: 500m, "
      "time: 12:30, date: 2001-12-14, version: 1.2.3, quoted: \"0400\", tagged: !!str 5, 08: 09}\n";
  json ours;
  REQUIRE(fiber::kube::YamlToJson(YAML::Load(tricky), "", &ours, &err));
  CHECK(KubectlReads(kubectl, dir.write("tricky.yaml", tricky)) == ours);
}

TEST_CASE("the API server accepts the run's Secret and a worker's pod, hostile values intact") {
  const std::optional<Cluster> cluster = FindCluster();
  if (!cluster) return;
  const fiber::backend::PodValues v = Worker(*cluster, RunUid(*cluster));
  json pod;
  std::string err;
  REQUIRE(fiber::backend::RenderPod(Load(fiber::backend::kWorkerPodTemplate), v, &pod, &err));
  const json created = DryRunCreate(*cluster, "pods", pod);
  const json& container = created["spec"]["containers"][0];
  CHECK(container["args"] == pod["spec"]["containers"][0]["args"]);
  CHECK(container["env"] == pod["spec"]["containers"][0]["env"]);
  CHECK(container["resources"]["limits"]["nvidia.com/gpu"] == "1");
  CHECK(created["metadata"]["ownerReferences"] == pod["metadata"]["ownerReferences"]);
  CHECK(created["spec"]["volumes"][0]["secret"]["defaultMode"] == 0400);
}

TEST_CASE("the API server accepts the master's pod") {
  const std::optional<Cluster> cluster = FindCluster();
  if (!cluster) return;
  fiber::backend::PodValues v = Worker(*cluster, RunUid(*cluster));
  v.worker_id.clear();
  json pod;
  std::string err;
  REQUIRE(fiber::backend::RenderPod(Load(fiber::backend::kMasterPodTemplate), v, &pod, &err));
  CHECK(DryRunCreate(*cluster, "pods", pod)["metadata"]["name"] == "fiber-0123456789ab-master");
}

TEST_CASE("the API server accepts a user's template with node selector, tolerations and volumes") {
  const std::optional<Cluster> cluster = FindCluster();
  if (!cluster) return;
  fiber::testing::TempDir dir;
  dir.write(fiber::backend::kWorkerPodTemplate, R"(apiVersion: v1
kind: Pod
spec:
  hostNetwork: true
  nodeSelector:
    kubernetes.io/hostname: localhost
  tolerations:
    - key: example.com/dedicated
      operator: Exists
      effect: NoSchedule
  containers:
    - name: worker
      volumeMounts:
        - name: scratch
          mountPath: /scratch
  volumes:
    - name: scratch
      emptyDir: {}
)");
  json pod;
  std::string err;
  REQUIRE(fiber::backend::RenderPod(Load(fiber::backend::kWorkerPodTemplate, dir.path()),
                                 Worker(*cluster, RunUid(*cluster)), &pod, &err));
  const json created = DryRunCreate(*cluster, "pods", pod);
  CHECK(created["spec"]["nodeSelector"]["kubernetes.io/hostname"] == "localhost");
  // Beside fiber's and the user's, the service account's token volume the
  // API server adds (this template does not turn it off).
  std::set<std::string> volumes;
  for (const json& volume : created["spec"]["volumes"]) volumes.insert(volume["name"].get<std::string>());
  CHECK(volumes.count("fiber-secret") == 1);
  CHECK(volumes.count("scratch") == 1);
}

TEST_CASE("the API server's reason for a manifest it refuses comes back") {
  const std::optional<Cluster> cluster = FindCluster();
  if (!cluster) return;
  fiber::backend::PodValues v = Worker(*cluster, RunUid(*cluster));
  v.labels["example.com/team"] = "not a label value";
  json pod;
  std::string err;
  REQUIRE(fiber::backend::RenderPod(Load(fiber::backend::kWorkerPodTemplate), v, &pod, &err));
  const fiber::http::Response r =
      cluster->Call("POST", "/api/v1/namespaces/" + cluster->namespace_name + "/pods?dryRun=All", pod);
  CHECK(r.status == 422);
  CHECK(json::parse(r.body)["message"].get<std::string>().find("metadata.labels") != std::string::npos);
}

TEST_CASE("deleting the run's Secret deletes every pod of the run, running or not") {
  const std::optional<Cluster> cluster = FindCluster();
  if (!cluster) return;
  // Created for real, in the test namespace, under a run id of this test's
  // own; whatever is left at the end is deleted, by label.
  const std::string run_id = "gc" + std::to_string(::getpid()) + std::to_string(std::time(nullptr) % 100000);
  const std::string ns_path = "/api/v1/namespaces/" + cluster->namespace_name;
  const std::string run_pods = ns_path + "/pods?labelSelector=" + fiber::http::Escape("fiber.run=" + run_id);
  struct Cleanup {
    const Cluster& cluster;
    std::string secret, pods;
    ~Cleanup() {
      cluster.Send("DELETE", secret);
      cluster.Send("DELETE", pods + "&gracePeriodSeconds=0");
    }
  } cleanup{*cluster, ns_path + "/secrets/" + fiber::backend::RunObjectName(run_id), run_pods};

  fiber::backend::RunValues run_values;
  run_values.run_id = run_id;
  run_values.namespace_name = cluster->namespace_name;
  run_values.secret_key = fiber::backend::kClientKeyItem;
  run_values.secret_value = "not a real key";
  json run;
  std::string err;
  REQUIRE(fiber::backend::RenderRun(Load(fiber::backend::kRunTemplate), run_values, &run, &err));
  fiber::http::Response r = cluster->Call("POST", ns_path + "/secrets", run);
  INFO(r.body);
  REQUIRE(r.status == 201);
  fiber::backend::PodValues v = Worker(*cluster, json::parse(r.body)["metadata"]["uid"].get<std::string>());
  v.run_id = run_id;
  v.secret_name = v.owner_name = fiber::backend::RunObjectName(run_id);
  v.image = cluster->registry + "/fiber/pause:3.10";  // test/cluster/up pushes it
  v.command.clear();
  v.gpu = 0;
  for (const char* worker : {"w1", "w2"}) {
    v.worker_id = worker;
    json pod;
    REQUIRE(fiber::backend::RenderPod(Load(fiber::backend::kWorkerPodTemplate), v, &pod, &err));
    r = cluster->Call("POST", ns_path + "/pods", pod);
    REQUIRE(r.status == 201);
  }
  CHECK(json::parse(cluster->Call("GET", run_pods).body)["items"].size() == 2);

  REQUIRE(cluster->Call("DELETE", ns_path + "/secrets/" + fiber::backend::RunObjectName(run_id)).status == 200);
  std::size_t left = 2;
  for (int second = 0; second < 120 && left > 0; ++second) {
    std::this_thread::sleep_for(std::chrono::seconds(1));
    left = json::parse(cluster->Call("GET", run_pods).body)["items"].size();
  }
  CHECK(left == 0);
}
