// A watch as the Kubernetes backend relies on it, against a scripted API
// server (test/programs/scripted_api.py) that splits events across chunks:
// events handed over in order, bookmarks only moving the resourceVersion on,
// the callback stopping it, a watch from no version listing first, and a
// resourceVersion too old (410, as an ERROR event or as the answer's status)
// reported as Gone, apart from other failures. A busy server:
// api_exchange_test.cpp.
#include <doctest/doctest.h>

#include <string>

#include "kube/api_client.hpp"
#include "support/scripted_api.hpp"

using fiber::kube::ApiClient;
using fiber::kube::ApiError;
using fiber::kube::ApiErrorKind;
using fiber::kube::WatchEvent;
using nlohmann::json;

namespace {

using fiber::testing::Answer;
using fiber::testing::Event;
using fiber::testing::Gone;
using fiber::testing::Pod;
using fiber::testing::ScriptedApi;
using fiber::testing::WatchFrom;

const std::string kPods = fiber::testing::kScriptedPods;

}  // namespace

TEST_CASE("a watch hands over each event in order; bookmarks only move its resourceVersion on") {
  ScriptedApi api({{kPods + "?watch=1",
                    Answer(200, {Event("ADDED", Pod("a", "11")), Event("BOOKMARK", Pod("", "12")),
                                 Event("MODIFIED", Pod("a", "13", "Running")),
                                 Event("DELETED", Pod("a", "14")), Event("BOOKMARK", Pod("", "15"))})}});
  std::vector<std::string> seen;
  std::string version;
  ApiError err;
  REQUIRE_MESSAGE(api.client().Watch(fiber::kube::kPods, WatchFrom("10"),
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
  REQUIRE_MESSAGE(api.client().Watch(fiber::kube::kPods, WatchFrom("10"),
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
  REQUIRE_MESSAGE(api.client().Watch(fiber::kube::kPods, WatchFrom(""),
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
    CHECK_FALSE(api.client().Watch(fiber::kube::kPods, WatchFrom("5"), [](const WatchEvent&) { return true; },
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
    CHECK_FALSE(api.client().Watch(fiber::kube::kPods, WatchFrom("5"), [](const WatchEvent&) { return true; },
                                   &version, &err));
    CHECK(err.kind == ApiErrorKind::kGone);
    CHECK(err.status == 410);
  }
  SUBCASE("other failures are not Gone") {
    ScriptedApi api({{kPods + "?watch=1", Answer(200, {json("not an event")})}});
    std::string version;
    ApiError err;
    CHECK_FALSE(api.client().Watch(fiber::kube::kPods, WatchFrom("5"), [](const WatchEvent&) { return true; },
                                   &version, &err));
    CHECK(err.kind == ApiErrorKind::kOther);
    CHECK(err.message.find("sent a line that is not an event") != std::string::npos);
  }
}
