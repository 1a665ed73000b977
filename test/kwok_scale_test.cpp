// A run of hundreds of workers on the test cluster's kwok nodes (test/cluster/up
// with FIBER_CLUSTER_KWOK_NODES; profile test-kwok), driven as a user
// would: the real fiber command, its master a local process, its workers'
// pods on simulated nodes that kwok marks Running (nothing runs in them, so
// no worker ever connects: the pool waits, and the test reads the API
// server). Every pod is created and Running, fiber ps lists them, fiber
// stop deletes them (with one deletecollection, or one by one for an
// account without that verb), nothing is left; and the same through a storm of 429s
// from API Priority and Fairness, each turned-away request of fiber's asked
// again, within its limit. FIBER_KWOK_TEST_WORKERS sets the size (300); bench/kwok_pods
// measures 256 to 2,048.
#include <doctest/doctest.h>

#include <chrono>
#include <cstdlib>
#include <cctype>
#include <cstdio>
#include <string>
#include <vector>

#include "kube/api_client.hpp"
#include "support/fiber_command.hpp"
#include "support/test_cluster.hpp"

using fiber::testing::ClusterValue;
using fiber::testing::eventually;
using fiber::testing::Fiber;
using nlohmann::json;

namespace {

int Workers() {
  const char* n = std::getenv("FIBER_KWOK_TEST_WORKERS");
  return n && *n ? std::atoi(n) : 300;
}

using fiber::testing::RunObjects;

// The run's pods kwok has marked Running, on which nodes.
int RunningOnKwok(const std::string& run_id, int* elsewhere) {
  int running = 0;
  *elsewhere = 0;
  for (const auto& pod : RunObjects(fiber::kube::kPods, run_id)) {
    const std::string node = pod["spec"].value("nodeName", "");
    if (!node.empty() && node.rfind("kwok-", 0) != 0) ++*elsewhere;
    running += pod["status"].value("phase", "") == "Running";
  }
  return running;
}

// What the master said of its requests to the API server once it had its
// pods (FIBER_LOG=info): sent, answered 429 or 503, most tries of one.
struct Requests {
  long sent = -1, throttled = -1, most_tries = -1;
};
Requests SaidRequests(const std::string& master_log) {
  // Read with sscanf, not std::regex: GCC 12 warns inside <regex> under the
  // sanitizers, and warnings are errors.
  Requests r;
  auto at = master_log.find(" requests sent, ");
  if (at == std::string::npos) return r;
  while (at > 0 && std::isdigit(static_cast<unsigned char>(master_log[at - 1]))) --at;
  Requests said;
  if (std::sscanf(master_log.c_str() + at, "%ld requests sent, %ld answered 429 or 503, at most %ld tries of one",
                  &said.sent, &said.throttled, &said.most_tries) == 3)
    r = said;
  return r;
}

// Runs hold_pool with n workers on kwok's nodes, with extra flags; checks
// every pod Running, ps and stop, nothing left; what the master said of
// its requests.
Requests RunOnKwok(int n, const std::vector<std::string>& flags) {
  ClusterValue("FIBER_CLUSTER_KWOK_NODES");  // the cluster was started with kwok
  Fiber fiber;
  fiber.env["FIBER_LOG"] = "info";
  std::vector<std::string> rest = {"--detach"};
  rest.insert(rest.end(), flags.begin(), flags.end());
  rest.push_back(built_program("hold_pool"));
  rest.push_back(std::to_string(n));
  const auto started = std::chrono::steady_clock::now();
  auto [status, out, err] =
      fiber.Run(fiber::testing::ProfileRun(ClusterValue("FIBER_CLUSTER_FIBER_CONFIG"), "test-kwok", rest));
  REQUIRE_MESSAGE(status == 0, err);
  const std::string run_id = out.substr(0, out.find('\n'));
  int running = 0, elsewhere = 0;
  const bool all = eventually([&] { return (running = RunningOnKwok(run_id, &elsewhere)) == n; }, 600);
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - started;
  MESSAGE(n << " pods Running " << took.count() << " s after fiber run");
  CHECK_MESSAGE(all, running << " of " << n << " pods Running");
  CHECK_MESSAGE(elsewhere == 0, elsewhere << " pods on nodes that are not kwok's");
  const json ps = fiber.PsOf(run_id);
  CHECK(ps["state"] == "running");
  CHECK(ps["pods"].size() == static_cast<std::size_t>(n));
  CHECK(ps["workers_started"] == n);
  auto [listed, table, table_err] = fiber.Run({"ps"});
  CHECK_MESSAGE(listed == 0, table_err);
  auto [stopped, stop_out, stop_err] = fiber.Run({"stop", run_id});
  CHECK_MESSAGE(stopped == 0, stop_err);
  const bool gone = eventually([&] {
    return RunObjects(fiber::kube::kPods, run_id).empty() && RunObjects(fiber::kube::kSecrets, run_id).empty();
  }, 120);
  CHECK_MESSAGE(gone, "run " << run_id << " left pods or its Secret");
  const std::string master_log = std::get<1>(fiber.Run({"logs", run_id}));
  const Requests r = SaidRequests(master_log);
  CHECK_MESSAGE(r.sent > 0, master_log.substr(master_log.size() > 4000 ? master_log.size() - 4000 : 0));
  MESSAGE(r.sent << " requests sent, " << r.throttled << " answered 429 or 503, at most " << r.most_tries
                 << " tries of one");
  return r;
}

// API Priority and Fairness for fiber's test account alone: one share of
// the server's concurrency (a seat or three), the rest turned away with
// 429 at once. Removed when the test ends.
struct Throttle {
  const fiber::kube::ApiResource levels{"flowcontrol.apiserver.k8s.io/v1", "prioritylevelconfigurations", false};
  const fiber::kube::ApiResource schemas{"flowcontrol.apiserver.k8s.io/v1", "flowschemas", false};
  const std::string name = "fiber-test-storm";
  fiber::kube::ApiClient admin = fiber::testing::ClusterClient(ClusterValue("FIBER_CLUSTER_ADMIN_KUBECONFIG"));
  Throttle() {
    json level = {{"apiVersion", levels.api_version}, {"kind", "PriorityLevelConfiguration"},
                  {"metadata", {{"name", name}}},
                  {"spec", {{"type", "Limited"},
                            {"limited", {{"nominalConcurrencyShares", 1}, {"lendablePercent", 0},
                                         {"borrowingLimitPercent", 0}, {"limitResponse", {{"type", "Reject"}}}}}}}};
    json subject = {{"kind", "ServiceAccount"},
                    {"serviceAccount", {{"name", "fiber-user"}, {"namespace", ClusterValue("FIBER_CLUSTER_NAMESPACE")}}}};
    json schema = {{"apiVersion", schemas.api_version}, {"kind", "FlowSchema"}, {"metadata", {{"name", name}}},
                   {"spec", {{"priorityLevelConfiguration", {{"name", name}}}, {"matchingPrecedence", 500},
                             {"distinguisherMethod", {{"type", "ByUser"}}},
                             {"rules", {{{"subjects", {subject}},
                                         {"resourceRules", {{{"verbs", {"*"}}, {"apiGroups", {"*"}}, {"resources", {"*"}},
                                                             {"namespaces", {"*"}}, {"clusterScope", true}}}}}}}}}};
    json made;
    fiber::kube::ApiError err;
    REQUIRE_MESSAGE(admin.Create(levels, level, &made, &err), err.message);
    REQUIRE_MESSAGE(admin.Create(schemas, schema, &made, &err), err.message);
  }
  ~Throttle() {
    fiber::kube::ApiError err;
    CHECK_MESSAGE(admin.Delete(schemas, name, &err), err.message);
    CHECK_MESSAGE(admin.Delete(levels, name, &err), err.message);
  }
};

// The verbs fiber's test account has on pods (the Role "fiber" of
// test/cluster/up) while it lives; as they were after.
struct PodVerbs {
  const fiber::kube::ApiResource roles{"rbac.authorization.k8s.io/v1", "roles"};
  json rules;
  explicit PodVerbs(const std::vector<std::string>& verbs) {
    json role;
    fiber::kube::ApiError err;
    REQUIRE_MESSAGE(fiber::testing::NamespaceAdmin().Get(roles, "fiber", &role, &err), err.message);
    rules = role["rules"];
    json changed = rules;
    for (json& rule : changed)
      if (rule["resources"] == json::array({"pods"})) rule["verbs"] = verbs;
    Set(changed);
  }
  ~PodVerbs() { Set(rules); }
  void Set(const json& to) {
    json role;
    fiber::kube::ApiError err;
    CHECK_MESSAGE(fiber::testing::NamespaceAdmin().Patch(roles, "fiber", {{"rules", to}}, &role, &err), err.message);
  }
};

}  // namespace

TEST_CASE("hundreds of workers' pods on kwok: all created and Running, listed by ps, deleted by stop") {
  const Requests r = RunOnKwok(Workers(), {});
  // Each pod's creation, and a few for the run (its Secret, the watch);
  // those a busy server turned away (429 or 503) asked again.
  CHECK(r.sent - r.throttled <= Workers() + 20);
}

TEST_CASE("the same run through a storm of 429s from API Priority and Fairness succeeds, each request asked again within its limit") {
  Throttle throttle;
  // No client-side limit: the server's fairness is all that holds fiber back.
  const Requests r = RunOnKwok(Workers(), {"--kube-qps", "100000", "--kube-burst", "100000"});
  // Asked again rather than given up on, and never past the limit: how
  // many tries one takes is the server's pace (1 s apart, as its
  // Retry-After says), slower on a loaded machine.
  CHECK(r.throttled > 0);
  CHECK(r.most_tries >= 2);
  CHECK(r.most_tries <= fiber::kube::kMaxThrottledRetries + 1);
}

TEST_CASE("fiber stop deletes a run's pods with one request: an account that may not delete pods one by one still "
          "has them all deleted") {
  PodVerbs verbs({"get", "list", "watch", "create", "deletecollection"});
  (void)RunOnKwok(30, {});
}

TEST_CASE("fiber stop with an account that may not deletecollection deletes the pods one by one, every one") {
  PodVerbs verbs({"get", "list", "watch", "create", "delete"});
  (void)RunOnKwok(30, {});
}
