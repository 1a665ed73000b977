// A busy API server (429, 503) as every call meets it, against a scripted
// API server (test/programs/scripted_api.py): asked again as its
// Retry-After says, a bounded number of times, each try counted; a create
// sent again (the server did not act); a watch opened again; a cancelled
// call not waiting the server out.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "kube/api_client.hpp"
#include "support/scripted_api.hpp"

using fiber::kube::ApiClient;
using fiber::kube::ApiError;
using fiber::kube::WatchEvent;
using namespace fiber::testing;  // the scripted server, its answers and objects

namespace {

const std::string kPods = kScriptedPods;

}  // namespace

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
  REQUIRE_MESSAGE(api.client().Watch(fiber::kube::kPods, WatchFrom("10"),
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
  fiber::kube::WatchOptions options = WatchFrom("10");
  options.cancel = &cancel;
  std::string version;
  ApiError err;
  CHECK_MESSAGE(api.client().Watch(fiber::kube::kPods, options, [](const WatchEvent&) { return true; },
                                   &version, &err),
                err.message);
  canceller.join();
  CHECK(api.requests().size() == 1);
}
