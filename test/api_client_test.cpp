// A watch as the Kubernetes backend relies on it, against a scripted API
// server (test/programs/scripted_api.py) that splits events across chunks:
// events handed over in order, bookmarks only moving the resourceVersion on,
// the callback stopping it, a watch from no version listing first, and a
// resourceVersion too old (410, as an ERROR event or as the answer's status)
// reported as Gone, apart from other failures; a busy server (429, 503)
// asked again as its Retry-After says, a bounded number of times.
#include <doctest/doctest.h>
#include <signal.h>

#include <fstream>
#include <map>
#include <thread>

#include "kube/api_client.hpp"
#include "support/scripted_api.hpp"

using fiber::kube::ApiClient;
using fiber::kube::ApiError;
using fiber::kube::ApiErrorKind;
using fiber::kube::WatchEvent;
using nlohmann::json;

namespace {

using fiber::testing::Answer;
using fiber::testing::Busy;
using fiber::testing::Event;
using fiber::testing::Gone;
using fiber::testing::Pod;
using fiber::testing::ScriptedApi;

const std::string kPods = fiber::testing::kScriptedPods;

fiber::kube::WatchOptions From(const std::string& version) {
  fiber::kube::WatchOptions options;
  options.resource_version = version;
  options.timeout_seconds = 5;
  return options;
}

}  // namespace

TEST_CASE("a watch hands over each event in order; bookmarks only move its resourceVersion on") {
  ScriptedApi api({{kPods + "?watch=1",
                    Answer(200, {Event("ADDED", Pod("a", "11")), Event("BOOKMARK", Pod("", "12")),
                                 Event("MODIFIED", Pod("a", "13", "Running")),
                                 Event("DELETED", Pod("a", "14")), Event("BOOKMARK", Pod("", "15"))})}});
  std::vector<std::string> seen;
  std::string version;
  ApiError err;
  REQUIRE_MESSAGE(api.client().Watch(fiber::kube::kPods, From("10"),
                                     [&](const WatchEvent& e) {
                                       seen.push_back(e.type + " " + e.object["metadata"]["resourceVersion"].get<std::string>());
                                       return true;
                                     },
                                     &version, &err),
                  err.message);
  CHECK(seen == std::vector<std::string>{"ADDED 11", "MODIFIED 13", "DELETED 14"});
  CHECK(version == "15");
  REQUIRE(api.requests().size() == 1);
  CHECK(api.requests()[0] == kPods + "?watch=1&allowWatchBookmarks=true&timeoutSeconds=5&resourceVersion=10");
}

TEST_CASE("a watch stops when its callback says so, with the version it got to") {
  ScriptedApi api({{kPods + "?watch=1",
                    Answer(200, {Event("ADDED", Pod("a", "11")), Event("MODIFIED", Pod("a", "12", "Running")),
                                 Event("MODIFIED", Pod("a", "13"))})}});
  int calls = 0;
  std::string version;
  ApiError err;
  REQUIRE_MESSAGE(api.client().Watch(fiber::kube::kPods, From("10"),
                                     [&](const WatchEvent& e) {
                                       ++calls;
                                       return !e.object.contains("status");
                                     },
                                     &version, &err),
                  err.message);
  CHECK(calls == 2);
  CHECK(version == "12");
}

TEST_CASE("a watch from no resourceVersion lists first, then watches from the list's version") {
  json list = {{"kind", "PodList"}, {"metadata", {{"resourceVersion", "20"}}}};
  list["items"] = std::vector<json>{Pod("a", "18"), Pod("b", "19")};
  ScriptedApi api({{kPods + "?limit=", Answer(200, {list})},
                   {kPods + "?watch=1", Answer(200, {Event("DELETED", Pod("a", "21"))})}});
  std::vector<std::string> seen;
  std::string version;
  ApiError err;
  REQUIRE_MESSAGE(api.client().Watch(fiber::kube::kPods, From(""),
                                     [&](const WatchEvent& e) {
                                       seen.push_back(e.type + " " + e.object["metadata"]["name"].get<std::string>());
                                       return true;
                                     },
                                     &version, &err),
                  err.message);
  CHECK(seen == std::vector<std::string>{"ADDED a", "ADDED b", "DELETED a"});
  CHECK(version == "21");
  REQUIRE(api.requests().size() == 2);
  CHECK(api.requests()[1].find("resourceVersion=20") != std::string::npos);
}

TEST_CASE("a resourceVersion too old is Gone, whether an ERROR event or the answer says it") {
  SUBCASE("an ERROR event") {
    ScriptedApi api({{kPods + "?watch=1", Answer(200, {Event("ADDED", Pod("a", "91")), Event("ERROR", Gone())})}});
    std::string version;
    ApiError err;
    CHECK_FALSE(api.client().Watch(fiber::kube::kPods, From("5"), [](const WatchEvent&) { return true; },
                                   &version, &err));
    CHECK(err.kind == ApiErrorKind::kGone);
    CHECK(err.message == "the watch of pods in namespace \"ns\" asked for a resourceVersion the API "
                         "server no longer has (410 Gone): too old resource version: 5 (90)");
    CHECK(version == "91");
  }
  SUBCASE("the answer's status") {
    ScriptedApi api({{kPods + "?watch=1", Answer(410, {Gone()})}});
    std::string version;
    ApiError err;
    CHECK_FALSE(api.client().Watch(fiber::kube::kPods, From("5"), [](const WatchEvent&) { return true; },
                                   &version, &err));
    CHECK(err.kind == ApiErrorKind::kGone);
    CHECK(err.status == 410);
  }
  SUBCASE("other failures are not Gone") {
    ScriptedApi api({{kPods + "?watch=1", Answer(200, {json("not an event")})}});
    std::string version;
    ApiError err;
    CHECK_FALSE(api.client().Watch(fiber::kube::kPods, From("5"), [](const WatchEvent&) { return true; },
                                   &version, &err));
    CHECK(err.kind == ApiErrorKind::kOther);
    CHECK(err.message.find("sent a line that is not an event") != std::string::npos);
  }
}

TEST_CASE("a busy server's 429 is waited out as its Retry-After says, then the call succeeds") {
  ScriptedApi api({{kPods + "/a", json::array({Busy(429, "1"), Busy(429, "1"), Answer(200, {Pod("a", "7")})})}});
  json pod;
  ApiError err;
  REQUIRE_MESSAGE(api.client().Get(fiber::kube::kPods, "a", &pod, &err), err.message);
  CHECK(pod["metadata"]["resourceVersion"] == "7");
  CHECK(api.requests() == std::vector<std::string>(3, kPods + "/a"));
}

TEST_CASE("a client and its copies count their requests, the answers 429 and the most tries of one call") {
  ScriptedApi api({{kPods + "/a", json::array({Busy(429, "0"), Busy(503, "0"), Answer(200, {Pod("a", "7")})})},
                   {kPods + "/b", Answer(200, {Pod("b", "8")})}});
  const ApiClient client = api.client();
  const ApiClient copy = client.InNamespace("ns");
  json pod;
  ApiError err;
  REQUIRE_MESSAGE(client.Get(fiber::kube::kPods, "a", &pod, &err), err.message);
  REQUIRE_MESSAGE(copy.Get(fiber::kube::kPods, "b", &pod, &err), err.message);
  CHECK(client.counts().sent == 4);
  CHECK(client.counts().throttled == 2);
  CHECK(client.counts().most_tries == 3);
  CHECK(&copy.counts() == &client.counts());
}

TEST_CASE("a create answered 429 is sent again: the server did not act") {
  ScriptedApi api({{kPods, json::array({Busy(429, "0"), Answer(201, {Pod("a", "8")})})}});
  json pod;
  ApiError err;
  REQUIRE_MESSAGE(api.client().Create(fiber::kube::kPods, Pod("a", ""), &pod, &err), err.message);
  CHECK(pod["metadata"]["resourceVersion"] == "8");
  CHECK(api.requests() == std::vector<std::string>(2, "POST " + kPods));
}

TEST_CASE("a server unavailable for good fails the call after a bounded number of tries, naming 503") {
  ScriptedApi api({{kPods + "/a", Busy(503, "0")}});
  json pod;
  ApiError err;
  CHECK_FALSE(api.client().Get(fiber::kube::kPods, "a", &pod, &err));
  CHECK(err.status == 503);
  CHECK(err.message == "cannot get pods \"a\" in namespace \"ns\": the API server at " + api.client().access().server +
                           " (context \"scripted\") answered 503 (slow down), after 9 tries");
  CHECK(api.requests().size() == 9);
}

TEST_CASE("a watch answered 503 at its opening is opened again") {
  ScriptedApi api({{kPods + "?watch=1", json::array({Busy(503, "0"), Answer(200, {Event("ADDED", Pod("a", "11"))})})}});
  std::vector<std::string> seen;
  std::string version;
  ApiError err;
  REQUIRE_MESSAGE(api.client().Watch(fiber::kube::kPods, From("10"),
                                     [&](const WatchEvent& e) {
                                       seen.push_back(e.type);
                                       return true;
                                     },
                                     &version, &err),
                  err.message);
  CHECK(seen == std::vector<std::string>{"ADDED"});
  CHECK(version == "11");
  CHECK(api.requests().size() == 2);
}

TEST_CASE("a cancelled watch ends as cancelled watches do (true), without waiting out a busy server") {
  ScriptedApi api({{kPods + "?watch=1", Busy(429, "60")}});
  std::atomic<bool> cancel{false};
  std::thread canceller([&] {
    while (api.requests().empty()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    cancel = true;
  });
  fiber::kube::WatchOptions options = From("10");
  options.cancel = &cancel;
  std::string version;
  ApiError err;
  CHECK_MESSAGE(api.client().Watch(fiber::kube::kPods, options, [](const WatchEvent&) { return true; },
                                   &version, &err),
                err.message);
  canceller.join();
  CHECK(api.requests().size() == 1);
}
