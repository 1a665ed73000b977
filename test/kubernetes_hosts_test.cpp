// The Kubernetes backend on a cluster of several test hosts
// (FIBER_CLUSTER_NODES=2 test/cluster/up): workers as pods on the pod
// network of both nodes, a master in a pod there, and a node that dies or
// is cut off in the middle of a map. What befalls a node is done to it by
// test/cluster/node; each test brings its node back before it ends.
#include <doctest/doctest.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "runs/log_stamps.hpp"
#include "subprocess.hpp"
#include "support/cluster_runs.hpp"
#include "support/metrics_page.hpp"

using fiber::testing::ClusterValue;
using fiber::testing::eventually;
using fiber::testing::Fiber;
using fiber::testing::NodeNames;
using fiber::testing::NothingLeft;
using fiber::testing::RunObjects;
using fiber::testing::PodsIn;
using fiber::testing::RunArgs;
using fiber::testing::SumOf;
using nlohmann::json;

namespace {

const fiber::kube::ApiResource kNodes{"v1", "nodes", false};

void RequireHosts() {
  REQUIRE_MESSAGE(NodeNames().size() >= 2, "these tests need nodes on test hosts: FIBER_CLUSTER_NODES=2 test/cluster/up"
                                               " (this cluster's nodes: " << ClusterValue("FIBER_CLUSTER_NODE_NAMES") << ")");
}

// Each node's pod subnet (its podCIDR, a /24) as the prefix of its pods'
// addresses ("10.244.1."), by node name.
std::map<std::string, std::string> PodPrefixes() {
  json list;
  fiber::kube::ApiError err;
  REQUIRE_MESSAGE(fiber::testing::NamespaceAdmin().List(kNodes, "", &list, &err), err.message);
  std::map<std::string, std::string> prefixes;
  for (const json& node : list["items"]) {
    const std::string cidr = node["spec"].value("podCIDR", "");
    prefixes[node["metadata"]["name"]] = cidr.substr(0, cidr.rfind('.') + 1);
  }
  return prefixes;
}

// Whether every node of the cluster's is Ready.
bool NodesReady() {
  json list;
  fiber::kube::ApiError err;
  if (!fiber::testing::NamespaceAdmin().List(kNodes, "", &list, &err)) return false;
  std::set<std::string> ready;
  for (const json& node : list["items"])
    for (const json& c : node["status"]["conditions"])
      if (c["type"] == "Ready" && c["status"] == "True") ready.insert(node["metadata"]["name"].get<std::string>());
  for (const std::string& name : NodeNames())
    if (!ready.count(name)) return false;
  return true;
}

// A command of test/cluster (node, up) with its arguments, run to its end.
void Cluster(const std::string& command, std::vector<std::string> args = {}) {
  const std::string tool = ClusterValue("FIBER_CLUSTER_NODE_TOOL");
  args.insert(args.begin(), tool.substr(0, tool.rfind('/') + 1) + command);
  Child c = spawn(args, {});
  const std::string out = read_all(c.stdout_fd, 300);
  const std::string err = read_all(c.stderr_fd, 30);
  CHECK_MESSAGE(wait_exit(c, 30) == 0, command << ": " << err);
}

// Brings a node back when the test ends, however it ends: its link up, or
// (once killed) its kubelet and containerd started again by up, which
// starts only what is missing; then waits for every node to be Ready.
struct NodeBack {
  std::string node;
  bool killed = false;
  ~NodeBack() {
    if (node.empty()) return;
    if (killed) Cluster("up");
    else Cluster("node", {"link", node, "up"});
    CHECK_MESSAGE(eventually(NodesReady, 180), "node " << node << " did not come back Ready");
  }
};

// The run of the first (only) run fiber ps lists, once it lists one.
std::string FirstRun(Fiber& fiber) {
  REQUIRE(eventually([&] { return !fiber.Ps().empty(); }, 120));
  return fiber.Ps()[0]["id"];
}

// The worker pods of a run, once n of them run: worker id to node name.
std::map<std::string, std::string> RunningWorkers(const std::string& run_id, int n) {
  REQUIRE(eventually([&] { return PodsIn(run_id, "Running") == n; }, 180));
  std::map<std::string, std::string> nodes;
  for (const json& pod : RunObjects(fiber::kube::kPods, run_id))
    nodes[pod["metadata"]["labels"][fiber::backend::kWorkerLabel]] = pod["spec"]["nodeName"];
  return nodes;
}

// CPUs a node offers its pods: "2" or "1500m".
double Cpus(const std::string& quantity) {
  return quantity.ends_with('m') ? std::stod(quantity) / 1000 : std::stod(quantity);
}

// A map of slow_squares with two workers, each asking for more than half
// of the smallest node's CPUs: no node can take both.
std::vector<std::string> SpreadMap(int tasks) {
  json list;
  fiber::kube::ApiError err;
  REQUIRE_MESSAGE(fiber::testing::NamespaceAdmin().List(kNodes, "", &list, &err), err.message);
  double smallest = 1e9;
  const std::vector<std::string> names = NodeNames();
  for (const json& node : list["items"])
    if (std::find(names.begin(), names.end(), node["metadata"]["name"]) != names.end())
      smallest = std::min(smallest, Cpus(node["status"]["allocatable"]["cpu"].get<std::string>()));
  return RunArgs({"--cpu", std::to_string(smallest * 0.6), built_program("slow_squares"), "2",
                  std::to_string(tasks)});
}

// A node that runs some of the run's workers, and those workers.
std::pair<std::string, std::vector<std::string>> VictimOf(const std::map<std::string, std::string>& workers) {
  const std::string node = workers.begin()->second;
  std::vector<std::string> lost;
  for (const auto& [worker, on] : workers)
    if (on == node) lost.push_back(worker);
  return {node, lost};
}

// What befalls a node in the middle of a map.
enum class Harm { kKill, kCut };

// A map over two workers on both nodes, whose first worker's node is
// harmed once all are ready: every result arrives once, and each worker of
// that node is reported lost.
void MapLosingANode(Harm harm) {
  Fiber fiber;
  NothingLeft check{fiber, ""};
  NodeBack back;
  auto child = fiber.Start(SpreadMap(60));
  check.run_id = FirstRun(fiber);
  const auto [victim, lost] = VictimOf(RunningWorkers(check.run_id, 2));
  REQUIRE(eventually([&] { return fiber.Ps()[0]["workers_ready"] == 2; }, 120));
  back.node = victim;
  back.killed = harm == Harm::kKill;
  if (back.killed) Cluster("node", {"kill", victim});
  else Cluster("node", {"link", victim, "down"});
  // While the map goes on, the master says so in its log: how long that
  // took is reported, not asserted. A cut-off worker is found silent after
  // up to heartbeat_interval + heartbeat_timeout (2 + 5 s), and lost once
  // its backend has not reported its end for 2 s more.
  const auto harmed = std::chrono::steady_clock::now();
  CHECK(eventually([&] { return std::get<1>(fiber.Run({"logs", check.run_id})).find(" lost") != std::string::npos; },
                   120));
  MESSAGE("the master reported the loss "
          << std::chrono::duration<double>(std::chrono::steady_clock::now() - harmed).count() << " s after node "
          << victim << std::string(back.killed ? " was killed" : " was cut off"));
  CHECK(read_all(child.stdout_fd, 300) == fiber::testing::SlowSquaresOutput(60));
  const std::string errors = read_all(child.stderr_fd, 30);
  CHECK_MESSAGE(wait_exit(child, 120) == 0, errors);
  for (const std::string& worker : lost)
    CHECK_MESSAGE(errors.find("worker " + worker + " lost") != std::string::npos, errors);
}

// The /metrics a master of hold_pool with n workers, all ready, serves at
// address, as Prometheus scrapes it (accepted by promtool).
void CheckMetricsOfHeldPool(const std::string& address, int n) {
  std::string page;
  CHECK_MESSAGE(eventually([&] {
                  page = fiber::testing::Get("http://" + address + "/metrics").second;
                  return SumOf(page, "fiber_workers", "state=\"ready\"") == n;
                }, 60),
                page);
  CHECK(SumOf(page, "fiber_workers_started_total") == n);
  CHECK(SumOf(page, "fiber_workers_lost_total") == 0);
  CHECK(SumOf(page, "fiber_tasks_submitted_total") == SumOf(page, "fiber_tasks_completed_total"));
  fiber::testing::TempDir dir;
  const auto [lint, said] = fiber::testing::Promtool(page, dir);
  CHECK_MESSAGE(lint == 0, said << page);
}

// fiber top --once --json and ps --json of a run whose master runs in a pod
// (its control socket there): its pods as the API server lists them, each
// worker's and the master's with its pod's name and node.
void CheckTopOfPods(Fiber& fiber, const std::string& run_id, const json& pods) {
  const json top = fiber.Top(run_id);
  CHECK(top["state"] == "running");
  CHECK(top["workers_from"] == "engine");
  std::map<std::string, std::pair<std::string, std::string>> expected;  // worker: pod, node
  for (const json& pod : pods) {
    const json labels = pod["metadata"]["labels"];
    const std::string id = labels.value(fiber::backend::kWorkerLabel, fiber::backend::kMasterRole);
    expected[id] = {pod["metadata"]["name"].get<std::string>(), pod["spec"]["nodeName"].get<std::string>()};
  }
  std::map<std::string, std::pair<std::string, std::string>> shown;
  for (const json& w : top["workers"])
    shown[w["id"].get<std::string>()] = {w["where"].get<std::string>(), w["node"].get<std::string>()};
  CHECK(shown == expected);
  auto [status, out, err] = fiber.Run({"ps", "--json", run_id});
  REQUIRE_MESSAGE(status == 0, err);
  const json ps = json::parse(out);
  CHECK(ps["workers"] == top["workers"]);
  CHECK(ps["pods"].size() == pods.size());
  for (const json& pod : ps["pods"]) CHECK(pod["node"] == expected.at(pod["worker"].get<std::string>()).second);
}

// fiber logs -t --worker w0 of a run whose pods keep their logs (none in
// the run's directory): each line with its time as fiber shows every time
// (RFC 3339 in UTC, 9 digits), also with -f.
void CheckTimedWorkerLog(Fiber& fiber, const std::string& run_id) {
  CHECK_FALSE(std::filesystem::exists(fiber.state.path() + "/fiber/runs/" + run_id + "/workers/w0.log"));
  const auto timed = [](const std::string& line) {
    fiber::runs::WallClock::time_point at;
    const std::string stamp = line.substr(0, line.find(' '));
    return stamp.size() == 30 && fiber::runs::ParseRfc3339(stamp, &at) && fiber::runs::Rfc3339(at) == stamp &&
           line.substr(stamp.size()) == " worker ready to talk";
  };
  std::string log;
  CHECK_MESSAGE(eventually([&] {
                  log = std::get<1>(fiber.Run({"logs", "-t", "--worker", "w0", run_id}));
                  return !log.empty();
                }, 60),
                log);
  CHECK_MESSAGE(timed(log.substr(0, log.find('\n'))), log);
  Child follow = fiber.Start({"logs", "-f", "-t", "--worker", "w0", run_id});
  const std::string first = read_line(follow.stdout_fd, 60);
  CHECK_MESSAGE(timed(first), first);
  ::kill(follow.pid, SIGTERM);
  (void)wait_exit(follow, 30);
}

}  // namespace

TEST_CASE("a Pool's workers run as pods on both test hosts, each at an address of its node's pod subnet, "
          "and every result arrives") {
  RequireHosts();
  Fiber fiber;
  NothingLeft check{fiber, ""};
  auto child = fiber.Start(SpreadMap(30));
  check.run_id = FirstRun(fiber);
  REQUIRE(eventually([&] { return PodsIn(check.run_id, "Running") == 2; }, 180));
  const auto prefixes = PodPrefixes();
  std::set<std::string> nodes;
  for (const json& pod : RunObjects(fiber::kube::kPods, check.run_id)) {
    const std::string node = pod["spec"]["nodeName"], ip = pod["status"]["podIP"], host = pod["status"]["hostIP"];
    nodes.insert(node);
    CHECK_FALSE(pod["spec"].value("hostNetwork", false));
    CHECK(ip != host);
    CHECK_MESSAGE(ip.rfind(prefixes.at(node), 0) == 0, "pod address " << ip << " on node " << node);
    MESSAGE(pod["metadata"]["name"].get<std::string>() << " on " << node << " (" << host << ") at " << ip);
  }
  CHECK(nodes.size() == 2);
  CHECK(read_all(child.stdout_fd, 300) == fiber::testing::SlowSquaresOutput(30));
  const std::string errors = read_all(child.stderr_fd, 30);
  CHECK_MESSAGE(wait_exit(child, 60) == 0, errors);
}

TEST_CASE("master: cluster on the pod network: the master's pod listens at its pod address, which its workers reach; "
          "Prometheus finds its /metrics there; fiber top shows its pods and nodes; logs -t the workers' lines' times") {
  RequireHosts();
  Fiber fiber;
  NothingLeft check{fiber, ""};
  // Its workers say "worker ready to talk" as they get ready.
  auto [status, out, err] = fiber.Run(RunArgs({"--detach", "--master", "cluster", "--cpu", "1", "--metrics", ":9464",
                                               built_program("hold_pool"), "2", "talk"}));
  REQUIRE_MESSAGE(status == 0, err);
  check.run_id = out.substr(0, out.find('\n'));
  REQUIRE(eventually([&] { return PodsIn(check.run_id, "Running") == 3; }, 180));
  std::string master_ip;
  const json pods = RunObjects(fiber::kube::kPods, check.run_id);
  for (const json& pod : pods)
    if (pod["metadata"]["labels"][fiber::backend::kRoleLabel] == fiber::backend::kMasterRole) {
      master_ip = pod["status"]["podIP"];
      CHECK_FALSE(pod["spec"].value("hostNetwork", false));
      CHECK(master_ip != pod["status"]["hostIP"]);
      CHECK(master_ip.rfind(PodPrefixes().at(pod["spec"]["nodeName"]), 0) == 0);
      // Where a cluster's Prometheus finds its /metrics.
      const json annotations = pod["metadata"]["annotations"];
      CHECK(annotations["prometheus.io/scrape"] == "true");
      CHECK(annotations["prometheus.io/port"] == "9464");
      CHECK(annotations["prometheus.io/path"] == "/metrics");
    }
  REQUIRE(!master_ip.empty());
  CheckMetricsOfHeldPool(master_ip + ":9464", 2);
  CheckTopOfPods(fiber, check.run_id, pods);
  CheckTimedWorkerLog(fiber, check.run_id);
  for (const json& pod : pods)
    if (pod["metadata"]["labels"][fiber::backend::kRoleLabel] == fiber::backend::kWorkerRole)
      CHECK_MESSAGE(pod["spec"].dump().find("tcp://" + master_ip + ":") != std::string::npos, pod["spec"].dump());
  // hold_pool prints its workers' pids once both are connected.
  std::string master_log;
  CHECK_MESSAGE(eventually([&] {
                  master_log = std::get<1>(fiber.Run({"logs", check.run_id}));
                  return master_log.find_first_of("0123456789") != std::string::npos;
                }, 120),
                master_log);
  auto [stopped, stop_out, stop_err] = fiber.Run({"stop", check.run_id});
  CHECK_MESSAGE(stopped == 0, stop_err);
}

TEST_CASE("a test host dies mid-map (its kubelet, containerd and pods' processes killed): its workers are lost, "
          "their tasks run on the other host, and every result arrives once") {
  RequireHosts();
  MapLosingANode(Harm::kKill);
}

TEST_CASE("a test host cut off from the master: its workers are lost once their heartbeats stop, their tasks run "
          "on the other host, and every result arrives once") {
  RequireHosts();
  MapLosingANode(Harm::kCut);
}
