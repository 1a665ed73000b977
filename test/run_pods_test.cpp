// Where a run finds its cluster: the settings choose the kubeconfig file,
// context and namespace; the environment says the rest, as for kubectl.
// A watch of pods resumes after the server ends it or forgets where it
// was (410), against a scripted API server, without losing a deletion.
// fiber stop's removal of a run's pods (one deletecollection, each pod on
// its own for an account without it; the logs no one saved), against the
// scripted server too. A run's pods and Secret on a real API server (fiber ps, stop, the
// backend's own pods): kube_backend_test.cpp.
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <map>

#include "backend/kubernetes/run_pods.hpp"
#include "runs/log_stamps.hpp"
#include "support/scripted_api.hpp"
#include "support/temp_dir.hpp"

TEST_CASE("a run's settings and the environment say where to look") {
  fiber::config::Settings settings;
  settings.kubeconfig = "/etc/k.yaml";
  settings.context = "c";
  settings.namespace_name = "n";
  const std::map<std::string, std::string> env = {{"KUBECONFIG", "/a:/b"}, {"HOME", "/home/u"},
                                                  {"KUBERNETES_SERVICE_HOST", "10.0.0.1"}};
  const fiber::kube::CredentialSearch search =
      fiber::backend::SearchFor(settings, [&](const char* name) -> const char* {
        auto it = env.find(name);
        return it == env.end() ? nullptr : it->second.c_str();
      });
  CHECK(search.kubeconfig == "/etc/k.yaml");
  CHECK(search.context == "c");
  CHECK(search.namespace_name == "n");
  CHECK(search.kubeconfig_env == "/a:/b");
  CHECK(search.home == "/home/u");
  CHECK(search.in_cluster.service_host == "10.0.0.1");
  CHECK(search.in_cluster.service_port.empty());
}

namespace {

using fiber::testing::Answer;
using fiber::testing::Event;
using fiber::testing::Pod;
using nlohmann::json;

json Labelled(const std::string& name, const std::string& version, const std::string& worker) {
  json pod = Pod(name, version, "Running");
  pod["metadata"]["labels"] = {{"fiber.worker", worker}};
  return pod;
}

json List(const std::string& version, const std::vector<json>& items) {
  return {{"kind", "PodList"}, {"metadata", {{"resourceVersion", version}}}, {"items", items}};
}

}  // namespace

TEST_CASE("a pod deleted while the server had forgotten the watch's version is handed on as deleted") {
  const std::string pods = fiber::testing::kScriptedPods;
  fiber::testing::ScriptedApi api(
      {{pods + "?limit=", json::array({Answer(200, {List("5", {Labelled("a", "4", "w0"), Labelled("b", "5", "w1")})}),
                                       Answer(200, {List("90", {Labelled("b", "88", "w1")})})})},
       {pods + "?watch=1&allowWatchBookmarks=true&timeoutSeconds=300&resourceVersion=5",
        Answer(200, {Event("MODIFIED", Labelled("b", "6", "w1")), Event("ERROR", fiber::testing::Gone())})},
       {pods + "?watch=1&allowWatchBookmarks=true&timeoutSeconds=300&resourceVersion=90",
        Answer(200, {Event("ADDED", Labelled("c", "91", "w2"))})}});
  fiber::backend::PodWatchCursor cursor;
  std::vector<std::string> heard;
  const auto hear = [&](const fiber::kube::WatchEvent& e) {
    heard.push_back(e.type + " " + e.object["metadata"]["name"].get<std::string>() + " " +
                    e.object["metadata"]["labels"].value("fiber.worker", ""));
  };
  std::atomic<bool> stop{false};
  std::string err;
  // The first step lists, then watches until the server says 410.
  REQUIRE_MESSAGE(fiber::backend::WatchPodsStep(api.client(), "", &cursor, hear, stop, &err), err);
  CHECK(cursor.version.empty());
  // Pod a went meanwhile: the next list lacks it.
  REQUIRE_MESSAGE(fiber::backend::WatchPodsStep(api.client(), "", &cursor, hear, stop, &err), err);
  CHECK(heard == std::vector<std::string>{"ADDED a w0", "ADDED b w1", "MODIFIED b w1", "ADDED b w1", "DELETED a w0",
                                          "ADDED c w2"});
  CHECK(cursor.version == "91");
  CHECK(cursor.present.size() == 2);
}

TEST_CASE("a pod's log saved as its pod goes keeps the API server's time of each line as its stamps") {
  fiber::testing::TempDir dir;
  const std::string pods = fiber::testing::kScriptedPods;
  fiber::testing::ScriptedApi api(
      {{pods + "/p1/log?timestamps=true&container=worker",
        Answer(200, {json{{"raw", "2026-11-26T10:00:01.5Z hello\n2026-11-26T10:00:01.5Z again\n"}},
                     json{{"raw", "2026-11-26T10:00:02Z world\nno time here\n"}}})}});
  const std::string log = dir.path() + "/w1.log";
  fiber::backend::SavePodLog(api.client(), "p1", "worker", "w1", log);
  std::ifstream in(log);
  const std::string saved((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(saved == "hello\nagain\nworld\nno time here\n");
  const auto stamps = fiber::runs::ReadStamps(fiber::runs::StampsPath(log));
  const auto at = [&](long long end) {
    return fiber::runs::Rfc3339(fiber::runs::StampOf(stamps, end, fiber::runs::WallClock::time_point()));
  };
  CHECK(at(6) == "2026-11-26T10:00:01.500000000Z");  // "hello\n"
  CHECK(at(12) == "2026-11-26T10:00:01.500000000Z");
  CHECK(at(18) == "2026-11-26T10:00:02.000000000Z");
  CHECK(at(31) == "1970-01-01T00:00:00.000000000Z");  // a line without a time has none of its own
  CHECK(stamps.size() <= 3);  // one a time, or a piece of the answer
}

namespace {

// A run "r" of four workers' pods: w0 running (its log unsaved), w1
// pending (no log yet), w2 being deleted (its deleter saved the log), w3
// running but its log file written already.
std::map<std::string, json> RunOfFour(const json& collection_answer) {
  const std::string pods = fiber::testing::kScriptedPods;
  json deleting = Labelled("p2", "3", "w2");
  deleting["metadata"]["deletionTimestamp"] = "2026-11-26T12:00:00Z";
  json pending = Labelled("p1", "2", "w1");
  pending["status"]["phase"] = "Pending";
  return {{pods + "?labelSelector=fiber.run%3Dr&limit=",
           Answer(200, {List("9", {Labelled("p0", "1", "w0"), pending, deleting, Labelled("p3", "4", "w3")})})},
          {pods + "?labelSelector=fiber.run%3Dr", collection_answer},
          {pods + "/p0/log", Answer(200, {"w0 said this"})},
          {pods + "/p3/log", Answer(200, {"w3 said this"})},
          {pods + "/", Answer(200, {json{{"kind", "Pod"}}})},
          {"/api/v1/namespaces/ns/secrets/fiber-r", Answer(200, {json{{"kind", "Secret"}}})}};
}

// What fiber stop asked of the scripted server for run r, saving logs in
// run_dir: the requests, the pods it counted.
std::vector<std::string> Removed(const fiber::testing::ScriptedApi& api, const std::string& run_dir, int* removed) {
  std::string err;
  CHECK_MESSAGE(fiber::backend::RemoveRun(api.client(), "r", run_dir, removed, &err), err);
  return api.requests();
}

}  // namespace

TEST_CASE("a run's pods go with one deletecollection; only the logs no one saved are read") {
  fiber::testing::ScriptedApi api(RunOfFour(Answer(200, {json{{"kind", "PodList"}}})));
  fiber::testing::TempDir run_dir;
  run_dir.write("workers/w3.log", "saved before\n");
  int removed = 0;
  const std::vector<std::string> asked = Removed(api, run_dir.path(), &removed);
  CHECK(removed == 4);
  const std::string pods = fiber::testing::kScriptedPods;
  int deletes = 0, logs = 0;
  for (const std::string& r : asked) {
    deletes += r.rfind("DELETE " + pods, 0) == 0;
    logs += r.find("/log?") != std::string::npos;
  }
  CHECK(deletes == 1);
  CHECK(std::count(asked.begin(), asked.end(), "DELETE " + pods + "?labelSelector=fiber.run%3Dr") == 1);
  CHECK(logs == 1);
  std::ifstream w0(run_dir.path() + "/workers/w0.log");
  std::string line;
  std::getline(w0, line);
  CHECK_MESSAGE(line.find("w0 said this") != std::string::npos, line);
  CHECK_FALSE(std::ifstream(run_dir.path() + "/workers/w1.log").good());
}

TEST_CASE("an account without deletecollection (403) has each pod not already being deleted deleted on its own") {
  fiber::testing::ScriptedApi api(RunOfFour(Answer(403, {json{{"kind", "Status"}, {"code", 403}, {"reason", "Forbidden"},
                                                              {"message", "pods is forbidden: cannot deletecollection"}}})));
  int removed = 0;
  const std::vector<std::string> asked = Removed(api, "", &removed);
  CHECK(removed == 4);
  const std::string pods = fiber::testing::kScriptedPods;
  for (const char* pod : {"p0", "p1", "p3"})
    CHECK(std::count(asked.begin(), asked.end(), "DELETE " + pods + "/" + pod) == 1);
  CHECK(std::count(asked.begin(), asked.end(), "DELETE " + pods + "/p2") == 0);
  for (const std::string& r : asked) CHECK(r.find("/log?") == std::string::npos);
}
