// The Kubernetes backend's pod requests on their threads, against a
// scripted API server: every creation made once, a refused one reported
// once, one whose manifest cannot be made reported with why, a deletion
// whose creation still waits drops it (no pod is made),
// and a deletion saves the pod's log first.
#include "backend/kubernetes/pod_requests.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <iterator>

#include "support/scripted_api.hpp"

using fiber::backend::PodRequests;
using fiber::testing::Answer;
using fiber::testing::Pod;
using fiber::testing::ScriptedApi;
using nlohmann::json;

namespace {

const std::string kPods = fiber::testing::kScriptedPods;

// A pod's manifest as the backend hands it over: made on a request thread.
PodRequests::Manifest Made(const std::string& name) {
  return [name](json* manifest, std::string*) {
    *manifest = Pod(name, "");
    return true;
  };
}

std::chrono::steady_clock::time_point In(int seconds) {
  return std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
}

}  // namespace

TEST_CASE("a pool's pods are each created once, on a few threads; the creations are reported") {
  ScriptedApi api({{kPods, Answer(201, {Pod("p", "1")})}});
  PodRequests requests(api.client(), 4);
  for (int i = 0; i < 40; ++i) requests.Create("w" + std::to_string(i), Made("fiber-r-w" + std::to_string(i)));
  REQUIRE(requests.WaitIdle(In(60)));
  std::vector<std::string> created = requests.TakeCreated();
  CHECK(created.size() == 40);
  std::sort(created.begin(), created.end());
  CHECK(std::unique(created.begin(), created.end()) == created.end());
  CHECK(requests.TakeCreated().empty());
  CHECK(requests.TakeFailed().empty());
  CHECK(api.requests() == std::vector<std::string>(40, "POST " + kPods));
}

TEST_CASE("a creation the API server refuses is reported once, with its words") {
  ScriptedApi api({{kPods, Answer(403, {json{{"kind", "Status"}, {"reason", "Forbidden"},
                                              {"message", "pods is forbidden: exceeded quota"}}})}});
  PodRequests requests(api.client(), 2);
  requests.Create("w0", Made("fiber-r-w0"));
  REQUIRE(requests.WaitIdle(In(60)));
  const std::vector<PodRequests::Failure> failed = requests.TakeFailed();
  REQUIRE(failed.size() == 1);
  CHECK(failed[0].worker_id == "w0");
  CHECK(failed[0].error.find("exceeded quota") != std::string::npos);
  CHECK(requests.TakeFailed().empty());
  CHECK(requests.TakeCreated().empty());
}

TEST_CASE("a manifest that cannot be made fails its creation with why, and nothing is asked of the server") {
  ScriptedApi api({});
  PodRequests requests(api.client(), 2);
  requests.Create("w0", [](json*, std::string* why) {
    *why = "worker-pod.yaml: no container named worker";
    return false;
  });
  REQUIRE(requests.WaitIdle(In(60)));
  const std::vector<PodRequests::Failure> failed = requests.TakeFailed();
  REQUIRE(failed.size() == 1);
  CHECK(failed[0].error == "worker-pod.yaml: no container named worker");
  CHECK(api.requests().empty());
}

TEST_CASE("a pod deleted while its creation waits is never created, and nothing is asked of the server") {
  ScriptedApi api({});
  PodRequests requests(api.client(), 0);  // no thread: every creation waits
  requests.Create("w0", Made("fiber-r-w0"));
  CHECK_FALSE(requests.Delete("w0", {"fiber-r-w0", 1, ""}));
  CHECK(requests.WaitIdle(In(1)));
  CHECK(requests.TakeDeleted().empty());
  CHECK(api.requests().empty());
}

TEST_CASE("a deletion saves the pod's output to the worker's log first, then deletes it") {
  ScriptedApi api({{kPods + "/fiber-r-w0/log", Answer(200, {json("last words")})},
                   {kPods + "/fiber-r-w0", Answer(200, {Pod("fiber-r-w0", "9")})}});
  fiber::testing::TempDir dir;
  const std::string log = dir.path() + "/w0.log";
  PodRequests requests(api.client(), 2);
  CHECK(requests.Delete("w0", {"fiber-r-w0", -1, log}));
  REQUIRE(requests.WaitIdle(In(60)));
  CHECK(requests.TakeDeleted() == std::vector<std::string>{"w0"});
  std::ifstream in(log);
  const std::string saved((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(saved.find("last words") != std::string::npos);
  const std::vector<std::string> asked = api.requests();
  REQUIRE(asked.size() == 2);
  CHECK(asked[0].rfind(kPods + "/fiber-r-w0/log?", 0) == 0);
  CHECK(asked[1] == "DELETE " + kPods + "/fiber-r-w0");
}
