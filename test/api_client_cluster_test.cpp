// The Kubernetes API client against the real API server of test/cluster
// (test/cluster/up first; its cluster.env says where): a pod created, read,
// listed by label, patched, watched to Running and deleted; the restricted
// account's 403 naming the verb and resource; an invalid manifest's 422; a
// namespace that does not exist; an API server that cannot be reached;
// credentials refused; an exec credential plugin (a script here) giving the
// admin's certificate or the restricted account's token. Every object goes
// into a namespace the test makes and deletes; the last test checks through
// the API that none is left. In the meson suite "kubernetes", which test/run
// runs while the cluster is up and plain `meson test` leaves out.
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <map>
#include <thread>

#include "kube/api_client.hpp"
#include "kube/kubeconfig.hpp"
#include "support/temp_dir.hpp"
#include "support/test_cluster.hpp"
#include "support/test_registry.hpp"

using fiber::kube::ApiClient;
using fiber::kube::ApiError;
using fiber::kube::ApiErrorKind;
using fiber::kube::kNamespaces;
using fiber::kube::kPods;
using nlohmann::json;

namespace {

// Objects of this test carry it, so that the last test can look for them.
const std::string kLabel = "fiber.test/kube-api";
const std::string kNamespacePrefix = "kube-api-test-";
const std::string kPauseImage = "127.0.0.1:30500/fiber/pause:3.10";

std::string Get(const char* key) { return fiber::testing::ClusterValue(key); }
ApiClient ClientOf(const std::string& kubeconfig) { return fiber::testing::ClusterClient(kubeconfig); }

ApiClient Admin() { return ClientOf(Get("FIBER_CLUSTER_ADMIN_KUBECONFIG")); }
ApiClient Restricted() { return ClientOf(Get("FIBER_CLUSTER_RESTRICTED_KUBECONFIG")); }

json Pod(const std::string& name, const std::string& test) {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", name}, {"labels", {{kLabel, test}}}}},
          {"spec",
           {{"containers", json::array({{{"name", "pause"}, {"image", kPauseImage}}})},
            {"automountServiceAccountToken", false},
            {"terminationGracePeriodSeconds", 1}}}};
}

// Waits for what to hold, asking every 200 ms for at most seconds.
template <typename Condition>
bool Eventually(int seconds, Condition what) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  while (std::chrono::steady_clock::now() < deadline) {
    if (what()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return what();
}

// A namespace of a test's own, removed with all it holds when the test ends,
// and checked gone through the API.
class TestNamespace {
 public:
  explicit TestNamespace(const std::string& test)
      : name_(kNamespacePrefix + test + "-" + std::to_string(::getpid())), admin_(Admin()) {
    json created;
    ApiError err;
    REQUIRE_MESSAGE(admin_.Create(kNamespaces,
                                  {{"apiVersion", "v1"},
                                   {"kind", "Namespace"},
                                   {"metadata", {{"name", name_}, {"labels", {{kLabel, test}}}}}},
                                  &created, &err),
                    err.message);
    // Pods need the namespace's default service account, which the
    // controller manager makes shortly after.
    const ApiClient in = admin_.InNamespace(name_);
    REQUIRE(Eventually(60, [&] {
      json account;
      ApiError ignored;
      return in.Get(fiber::kube::kServiceAccounts, "default", &account, &ignored);
    }));
  }
  ~TestNamespace() {
    ApiError err;
    const ApiClient in = admin_.InNamespace(name_);
    json pods;
    if (in.List(kPods, "", &pods, &err))
      for (const auto& pod : pods["items"])
        (void)in.Delete(kPods, pod["metadata"]["name"].get<std::string>(), &err, 0);
    CHECK_MESSAGE(admin_.Delete(kNamespaces, name_, &err), err.message);
    CHECK_MESSAGE(Eventually(120,
                             [&] {
                               json ns;
                               return !admin_.Get(kNamespaces, name_, &ns, &err) &&
                                      err.kind == ApiErrorKind::kNotFound;
                             }),
                  "namespace " << name_ << " still there: " << err.message);
  }
  const std::string& name() const { return name_; }
  ApiClient admin() const { return admin_.InNamespace(name_); }

 private:
  std::string name_;
  ApiClient admin_;
};

std::string Phase(const json& pod) {
  return pod.contains("status") ? pod["status"].value("phase", "") : "";
}

using fiber::testing::ExecKubeconfig;

}  // namespace

TEST_CASE("a pod is created, read, listed by label, patched, watched to Running and deleted") {
  TestNamespace ns("pod");
  const ApiClient api = ns.admin();
  json pod;
  ApiError err;
  REQUIRE_MESSAGE(api.Create(kPods, Pod("p1", "pod"), &pod, &err), err.message);
  CHECK(pod["metadata"]["namespace"] == ns.name());
  CHECK_FALSE(pod["metadata"].value("uid", "").empty());

  REQUIRE_MESSAGE(api.Get(kPods, "p1", &pod, &err), err.message);
  CHECK(pod["metadata"]["labels"][kLabel] == "pod");

  json list;
  REQUIRE_MESSAGE(api.List(kPods, kLabel + "=pod", &list, &err), err.message);
  REQUIRE(list["items"].size() == 1);
  CHECK(list["items"][0]["metadata"]["name"] == "p1");
  CHECK_FALSE(list["metadata"].value("resourceVersion", "").empty());
  REQUIRE_MESSAGE(api.List(kPods, kLabel + "=other", &list, &err), err.message);
  CHECK(list["items"].empty());

  REQUIRE_MESSAGE(api.Patch(kPods, "p1", {{"metadata", {{"labels", {{"patched", "yes"}}}}}}, &pod, &err),
                  err.message);
  CHECK(pod["metadata"]["labels"]["patched"] == "yes");
  CHECK(pod["metadata"]["labels"][kLabel] == "pod");

  // From nothing: the pod as ADDED, then its changes until it runs.
  std::vector<std::string> types;
  std::string version;
  fiber::kube::WatchOptions watch;
  watch.label_selector = kLabel + "=pod";
  watch.timeout_seconds = 120;
  REQUIRE_MESSAGE(api.Watch(kPods, watch,
                            [&](const fiber::kube::WatchEvent& e) {
                              types.push_back(e.type);
                              return Phase(e.object) != "Running";
                            },
                            &version, &err),
                  err.message);
  REQUIRE_FALSE(types.empty());
  CHECK(types.front() == "ADDED");
  REQUIRE_MESSAGE(api.Get(kPods, "p1", &pod, &err), err.message);
  CHECK(Phase(pod) == "Running");
  CHECK_FALSE(version.empty());

  // From the version seen: only what comes after, here its deletion.
  REQUIRE_MESSAGE(api.Delete(kPods, "p1", &err, 0), err.message);
  watch.resource_version = version;
  bool deleted = false;
  REQUIRE_MESSAGE(api.Watch(kPods, watch,
                            [&](const fiber::kube::WatchEvent& e) {
                              deleted = e.type == "DELETED";
                              return !deleted;
                            },
                            &version, &err),
                  err.message);
  CHECK(deleted);
  CHECK_FALSE(api.Get(kPods, "p1", &pod, &err));
  CHECK(err.kind == ApiErrorKind::kNotFound);
  CHECK(err.message == "pods \"p1\" in namespace \"" + ns.name() + "\" not found");
}

TEST_CASE("the restricted account's 403 names the verb, resource and namespace it lacks") {
  const ApiClient api = Restricted();
  const std::string ns = Get("FIBER_CLUSTER_NAMESPACE");
  CHECK(api.namespace_name() == ns);
  json object;
  ApiError err;
  CHECK_FALSE(api.Create(fiber::kube::kConfigMaps,
                         {{"apiVersion", "v1"},
                          {"kind", "ConfigMap"},
                          {"metadata", {{"name", "kube-api-test"}, {"labels", {{kLabel, "rbac"}}}}}},
                         &object, &err));
  CHECK(err.kind == ApiErrorKind::kForbidden);
  CHECK(err.status == 403);
  CHECK_MESSAGE(err.message.find("cannot create configmaps \"kube-api-test\" in namespace \"" + ns +
                                 "\"") == 0,
                err.message);
  CHECK(err.message.find("the account lacks permission") != std::string::npos);

  CHECK_FALSE(api.Get(fiber::kube::kSecrets, "anything", &object, &err));
  CHECK(err.kind == ApiErrorKind::kForbidden);
  CHECK_MESSAGE(err.message.find("cannot get secrets \"anything\" in namespace \"" + ns + "\"") == 0,
                err.message);

  // What it may do, it can.
  CHECK_MESSAGE(api.List(kPods, kLabel, &object, &err), err.message);
}

TEST_CASE("an invalid manifest gives 422 with the API server's reason") {
  const ApiClient api = Restricted();
  json pod = Pod("kube-api-test-invalid", "invalid");
  pod["spec"]["containers"] = json::array();
  json created;
  ApiError err;
  CHECK_FALSE(api.Create(kPods, pod, &created, &err));
  CHECK(err.kind == ApiErrorKind::kInvalid);
  CHECK_MESSAGE(err.message.find("as invalid: Pod \"kube-api-test-invalid\" is invalid: spec.containers: "
                                 "Required value") != std::string::npos,
                err.message);
}

TEST_CASE("a namespace that does not exist is named") {
  const std::string missing = kNamespacePrefix + "absent-" + std::to_string(::getpid());
  const ApiClient api = Admin().InNamespace(missing);
  json created;
  ApiError err;
  CHECK_FALSE(api.Create(kPods, Pod("p", "absent"), &created, &err));
  CHECK(err.kind == ApiErrorKind::kNamespaceNotFound);
  CHECK(err.message == "namespace \"" + missing + "\" does not exist on the API server at " +
                           Get("FIBER_CLUSTER_API") + " (context \"fiber-admin@fiber-test\")");
}

TEST_CASE("an API server that cannot be reached is named, with curl's reason, at once") {
  fiber::kube::ClusterAccess access = Admin().access();
  access.server = "https://127.0.0.1:" + std::to_string(fiber::testing::FreePort());
  const ApiClient api(access);
  json object;
  ApiError err;
  const auto start = std::chrono::steady_clock::now();
  CHECK_FALSE(api.Get(kPods, "p", &object, &err));
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(10));
  CHECK(err.kind == ApiErrorKind::kUnreachable);
  CHECK_MESSAGE(err.message.find("cannot reach the API server at " + access.server +
                                 " (context \"fiber-admin@fiber-test\"): ") == 0,
                err.message);
  CHECK_MESSAGE(err.message.find("onnect") != std::string::npos, err.message);  // "Couldn't connect"
}

TEST_CASE("credentials the API server does not accept give 401 naming the context") {
  fiber::kube::ClusterAccess access = Restricted().access();
  access.token = "not-a-token-of-this-cluster";
  const ApiClient api(access);
  json object;
  ApiError err;
  CHECK_FALSE(api.List(kPods, "", &object, &err));
  CHECK(err.kind == ApiErrorKind::kUnauthorized);
  CHECK(err.message == "the API server at " + Get("FIBER_CLUSTER_API") +
                           " rejected the credentials of context \"fiber-restricted@fiber-test\" "
                           "(401 Unauthorized)");
  CHECK(err.message.find("not-a-token") == std::string::npos);
}

TEST_CASE("an exec credential plugin's client certificate works against the real server") {
  fiber::testing::TempDir dir;
  const std::string pki = Get("FIBER_CLUSTER_CA").substr(0, Get("FIBER_CLUSTER_CA").rfind('/'));
  // The admin's certificate and key as JSON strings (newlines escaped).
  const std::string kubeconfig = ExecKubeconfig(
      dir, "#!/bin/sh\n"
           "pem() { awk '{printf \"%s\\\\n\", $0}' \"$1\"; }\n"
           "echo \"$KUBERNETES_EXEC_INFO\" > \"$(dirname \"$0\")/exec_info\"\n"
           "printf '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\","
           "\"status\":{\"clientCertificateData\":\"%s\",\"clientKeyData\":\"%s\"}}' "
           "\"$(pem " + pki + "/admin.crt)\" \"$(pem " + pki + "/admin.key)\"\n");
  const ApiClient api = ClientOf(kubeconfig);
  json ns;
  ApiError err;
  CHECK_MESSAGE(api.Get(kNamespaces, Get("FIBER_CLUSTER_NAMESPACE"), &ns, &err), err.message);
  std::ifstream info(dir.path() + "/exec_info");
  std::string line;
  std::getline(info, line);
  CHECK(line.find("\"server\":\"" + Get("FIBER_CLUSTER_API") + "\"") != std::string::npos);
}

TEST_CASE("an exec credential plugin's token works against the real server") {
  fiber::testing::TempDir dir;
  // The restricted account's token, from its kubeconfig.
  const std::string kubeconfig =
      ExecKubeconfig(dir, fiber::testing::TokenPlugin(Get("FIBER_CLUSTER_RESTRICTED_KUBECONFIG")));
  const ApiClient api = ClientOf(kubeconfig);
  json pods;
  ApiError err;
  CHECK_MESSAGE(api.List(kPods, "", &pods, &err), err.message);
  // The restricted account, not an admin: secrets stay forbidden.
  CHECK_FALSE(api.Get(fiber::kube::kSecrets, "anything", &pods, &err));
  CHECK(err.kind == ApiErrorKind::kForbidden);
}

TEST_CASE("nothing of these tests is left in the cluster") {
  const ApiClient api = Admin();
  json list;
  ApiError err;
  REQUIRE_MESSAGE(api.InNamespace(Get("FIBER_CLUSTER_NAMESPACE")).List(kPods, kLabel, &list, &err),
                  err.message);
  CHECK(list["items"].empty());
  REQUIRE_MESSAGE(api.List(kNamespaces, kLabel, &list, &err), err.message);
  CHECK(list["items"].empty());
}
