// The Kubernetes backend against the real cluster of test/cluster, driven
// as a user would: the real fiber command with the fiber config test/cluster/up
// leaves (--config FILE --profile test-cluster), each program packaged by
// fiber run and pushed to the cluster's registry, its workers as pods. The
// API server's records, read with the admin account, say what each run left:
// every test checks that its run has no pod and no Secret left.
#include <doctest/doctest.h>
#include <signal.h>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "backend/kubernetes/run_secret.hpp"
#include "encoding/base64.hpp"
#include "subprocess.hpp"
#include "support/cluster_runs.hpp"
#include "support/loopback_port.hpp"
#include "support/watched_run.hpp"
#include "wire/credentials.hpp"

using fiber::testing::ClusterValue;
using fiber::testing::eventually;
using fiber::testing::Fiber;
using fiber::testing::NamespaceAdmin;
using fiber::testing::NothingLeft;
using fiber::testing::PodsIn;
using fiber::testing::RunArgs;
using fiber::testing::RunObjects;
using nlohmann::json;

namespace {

// fiber run --detach of hold_pool with two workers as pods, once both are
// ready; its run id goes to check.
void StartHeld(Fiber& fiber, NothingLeft& check) {
  auto [status, out, err] = fiber.Run(RunArgs({"--detach", built_program("hold_pool"), "2"}));
  REQUIRE_MESSAGE(status == 0, err);
  check.run_id = out.substr(0, out.find('\n'));
  REQUIRE(eventually([&] { return fiber.Ps()[0]["workers_ready"] == 2; }, 180));
}

// fiber logs --worker WORKER RUN's output, checked to succeed.
std::string WorkerLog(Fiber& fiber, const std::string& run_id, const std::string& worker) {
  auto [status, out, err] = fiber.Run({"logs", "--worker", worker, run_id});
  CHECK_MESSAGE(status == 0, err);
  return out;
}
std::string FirstWorkerLog(Fiber& fiber, const std::string& run_id) { return WorkerLog(fiber, run_id, "w0"); }

// Deletes a pod of run_id's while child, slow_squares of m tasks, maps;
// checks that it then gives every result once and succeeds. Its stderr.
std::string DeleteAPodUntilTheEnd(const std::string& run_id, Child& child, long m) {
  const json pods = RunObjects(fiber::kube::kPods, run_id);
  REQUIRE(!pods.empty());
  fiber::kube::ApiError err;
  REQUIRE_MESSAGE(NamespaceAdmin().Delete(fiber::kube::kPods, pods[0]["metadata"]["name"].get<std::string>(), &err, 0),
                  err.message);
  const std::string out = read_all(child.stdout_fd, 300);
  const std::string errors = read_all(child.stderr_fd, 30);
  CHECK_MESSAGE(wait_exit(child, 30) == 0, errors);
  CHECK(out == fiber::testing::SlowSquaresOutput(m));
  return errors;
}

}  // namespace

TEST_CASE("a Pool map whose workers are pods gives every result; logs --worker reads a pod's output") {
  Fiber fiber;
  NothingLeft check{fiber, ""};
  auto [status, out, err] = fiber.Run(RunArgs({built_program("chatty_pool")}));
  REQUIRE_MESSAGE(status == 0, err);
  CHECK(out == "result 10\nresult 20\nresult 30\nresult 40\n");
  const json run = fiber.Ps()[0];
  CHECK(run["backend"] == "kubernetes");
  check.run_id = run["id"];
  // Either worker may have run all four tasks (the other even stopped before
  // its pod started, its log then empty): read both.
  const std::string worker_log = FirstWorkerLog(fiber, check.run_id) + WorkerLog(fiber, check.run_id, "w1");
  CHECK_MESSAGE(worker_log.find("worker says") != std::string::npos, worker_log);
}

TEST_CASE("a worker killed for its task's timeout keeps its output: its pod's log is saved before it is deleted") {
  Fiber fiber;
  NothingLeft check{fiber, ""};
  auto [status, out, err] = fiber.Run(RunArgs({built_program("stuck_task")}));
  CHECK_MESSAGE(status == 0, err);
  CHECK(out == "timed out\nresult 10\n");
  check.run_id = fiber.Ps()[0]["id"];
  const std::string killed = FirstWorkerLog(fiber, check.run_id);
  CHECK_MESSAGE(killed.find("task 0 starts") != std::string::npos, killed);
  CHECK(WorkerLog(fiber, check.run_id, "w1").find("task 1 starts") != std::string::npos);
}

TEST_CASE("an image built by fiber image build --push runs a map on pods, named by --image") {
  Fiber fiber;
  NothingLeft check{fiber, ""};
  const std::string to = ClusterValue("FIBER_CLUSTER_REGISTRY") + "/fiber-test/chatty:built";
  auto [built, reference, build_err] =
      fiber.Run({"image", "build", "-q", built_program("chatty_pool"), "--push", to});
  REQUIRE_MESSAGE(built == 0, build_err);
  reference = reference.substr(0, reference.find('\n'));
  CHECK(reference.rfind(to + "@sha256:", 0) == 0);
  auto [status, out, err] = fiber.Run(RunArgs({"--image", reference, built_program("chatty_pool")}));
  CHECK_MESSAGE(status == 0, err);
  CHECK(out == "result 10\nresult 20\nresult 30\nresult 40\n");
}

TEST_CASE("a worker's pod deleted, then another evicted, mid-map: their tasks are recovered, every result arrives "
          "once, and each loss says why on stderr, in the log, in fiber top and in /metrics") {
  Fiber fiber;
  NothingLeft check{fiber, ""};
  const std::string metrics = "127.0.0.1:" + std::to_string(fiber::testing::FreeLoopbackPort());
  constexpr long kTasks = 160;  // of 300 ms on 2 workers: 24 s
  auto child = fiber.Start(RunArgs({"--metrics", metrics, built_program("slow_squares"), "2", std::to_string(kTasks)}));
  REQUIRE(eventually([&] { return !fiber.Ps().empty(); }, 120));
  check.run_id = fiber.Ps()[0]["id"];
  REQUIRE(eventually([&] { return PodsIn(check.run_id, "Running") == 2; }, 180));
  REQUIRE(eventually([&] { return fiber.Ps()[0]["workers_ready"] == 2; }, 60));
  // fiber top while it maps: each worker in its pod, on its node.
  const json pods = RunObjects(fiber::kube::kPods, check.run_id);
  REQUIRE(pods.size() == 2);
  const json live = fiber.Top(check.run_id);
  CHECK(live["workers_from"] == "master");
  for (const json& pod : pods) {
    json worker;
    for (const json& w : live["workers"])
      if (w["id"] == pod["metadata"]["labels"][fiber::backend::kWorkerLabel]) worker = w;
    REQUIRE_MESSAGE(worker.is_object(), live.dump());
    CHECK(worker["where"] == pod["metadata"]["name"]);
    CHECK(worker["node"] == pod["spec"]["nodeName"]);
  }
  const auto worker_of = [](const json& pod) {
    return pod["metadata"]["labels"][fiber::backend::kWorkerLabel].get<std::string>();
  };
  fiber::kube::ApiError err;
  REQUIRE_MESSAGE(NamespaceAdmin().Delete(fiber::kube::kPods, pods[0]["metadata"]["name"].get<std::string>(), &err, 0),
                  err.message);
  fiber::testing::CheckLossWhileItRuns(fiber, check.run_id, metrics, kTasks, worker_of(pods[0]), "deleted",
                                       "its pod was deleted");
  // The Eviction API, as a node drain uses it.
  const std::string evicted = pods[1]["metadata"]["name"];
  REQUIRE_MESSAGE(NamespaceAdmin().Create({"v1", "pods/" + evicted + "/eviction"},
                                          {{"apiVersion", "policy/v1"}, {"kind", "Eviction"},
                                           {"metadata", {{"name", evicted}, {"namespace", ClusterValue("FIBER_CLUSTER_NAMESPACE")}}}},
                                          nullptr, &err),
                  err.message);
  fiber::testing::CheckLossWhileItRuns(fiber, check.run_id, metrics, kTasks, worker_of(pods[1]), "evicted",
                                       "its pod was evicted (a node drain or the Eviction API)");
  const std::string out = read_all(child.stdout_fd, 300);
  const std::string errors = read_all(child.stderr_fd, 30);
  CHECK_MESSAGE(wait_exit(child, 30) == 0, errors);
  CHECK(out == fiber::testing::SlowSquaresOutput(kTasks));
  const std::vector<fiber::testing::Loss> lost = {
      {worker_of(pods[0]), "its pod was deleted"},
      {worker_of(pods[1]), "its pod was evicted (a node drain or the Eviction API)"}};
  for (const auto& loss : lost)
    CHECK_MESSAGE(fiber::testing::TimesSaid(errors, loss) == 1, loss.what << " in " << errors);
  fiber::testing::CheckEnd(fiber, check.run_id, lost, kTasks);
}

TEST_CASE("a pod over its memory limit is reported as killed for it (OOM), with the limit and the task") {
  Fiber fiber;
  NothingLeft check{fiber, ""};
  auto [status, out, err] = fiber.Run(RunArgs({"--memory", "64Mi", built_program("ending_pool"), "hog", "512"}));
  CHECK(status == 1);
  CHECK_MESSAGE(fiber::testing::Occurrences(err, " lost: killed for using more than its memory limit of 64Mi (OOM) "
                                                 "while running fill_memory") == 1,
                err);
  CHECK_MESSAGE(out.find("(OOM)") != std::string::npos, out);
}

TEST_CASE("6 workers at 3 per pod are 2 pods; one deleted mid-map loses its 3 workers, which are replaced, every result once") {
  Fiber fiber;
  NothingLeft check{fiber, ""};
  auto child = fiber.Start(RunArgs({"--workers-per-job", "3", built_program("slow_squares"), "6", "300"}));
  REQUIRE(eventually([&] { return !fiber.Ps().empty(); }, 120));
  check.run_id = fiber.Ps()[0]["id"];
  REQUIRE(eventually([&] { return fiber.Ps()[0]["workers_ready"] == 6; }, 180));
  CHECK(RunObjects(fiber::kube::kPods, check.run_id).size() == 2);
  // The pods' phase may show Running only after their workers connected.
  CHECK(eventually([&] { return PodsIn(check.run_id, "Running") == 2; }, 60));
  const std::string errors = DeleteAPodUntilTheEnd(check.run_id, child, 300);
  CHECK_MESSAGE(fiber::testing::Occurrences(errors, " lost: ") == 3, errors);
}

TEST_CASE("the master SIGKILLed: its pods are gone within seconds, checked through the API") {
  Fiber fiber;
  NothingLeft check{fiber, ""};
  StartHeld(fiber, check);
  // The kubelet reports a pod Running a moment after its container runs.
  CHECK(eventually([&] { return PodsIn(check.run_id, "Running") == 2; }, 60));
  const json secrets = RunObjects(fiber::kube::kSecrets, check.run_id);
  REQUIRE(secrets.size() == 1);
  // The pods name the run's secret but hold no key: neither it nor the
  // master's public key, which derives from it.
  std::string key, err;
  REQUIRE(fiber::Base64Decode(secrets[0]["data"][fiber::backend::kClientKeyItem].get<std::string>(), &key));
  fiber::wire::Credentials keys;
  REQUIRE_MESSAGE(fiber::wire::Credentials::FromClientKey(key, &keys, &err), err);
  const std::string pods = RunObjects(fiber::kube::kPods, check.run_id).dump();
  CHECK(pods.find(keys.client_secret) == std::string::npos);
  CHECK(pods.find(keys.server_public) == std::string::npos);
  ::kill(static_cast<pid_t>(fiber.Record(check.run_id)["master_pid"].get<long>()), SIGKILL);
  CHECK(eventually([&] { return RunObjects(fiber::kube::kPods, check.run_id).empty(); }, 60));
}

TEST_CASE("launcher and master SIGKILLed: ps shows the run's pods until fiber stop removes them") {
  Fiber fiber;
  NothingLeft check{fiber, ""};
  StartHeld(fiber, check);
  const json record = fiber.Record(check.run_id);
  ::kill(static_cast<pid_t>(record["supervisor_pid"].get<long>()), SIGKILL);
  ::kill(static_cast<pid_t>(record["master_pid"].get<long>()), SIGKILL);
  // The workers lose their master and end; their pods stay until removed.
  REQUIRE(eventually([&] { return PodsIn(check.run_id, "Failed") + PodsIn(check.run_id, "Succeeded") == 2; }, 60));
  const json run = fiber.Ps()[0];
  REQUIRE(run["pods"].is_array());
  CHECK(run["pods"].size() == 2);
  auto [stopped, stop_out, stop_err] = fiber.Run({"stop", check.run_id});
  CHECK_MESSAGE(stopped == 0, stop_err);
  CHECK_MESSAGE(stop_err.find("removed 2 pods of run " + check.run_id) != std::string::npos, stop_err);
  const std::string worker_log = FirstWorkerLog(fiber, check.run_id);
  CHECK_MESSAGE(worker_log.find("lost the master") != std::string::npos, worker_log);
}

TEST_CASE("leftovers after kill -9 of a Kubernetes run: ps names its pending pods and the Secret holding its key; "
          "prune removes them, and not another run's") {
  Fiber fiber;
  NothingLeft check{fiber, ""}, other_check{fiber, ""};
  // Pods no node can take: they stay pending, whatever becomes of their master.
  auto start = [&](NothingLeft& guard, int workers) {
    auto [status, out, err] =
        fiber.Run(RunArgs({"--detach", "--cpu", "64", built_program("hold_pool"), std::to_string(workers)}));
    REQUIRE_MESSAGE(status == 0, err);
    guard.run_id = out.substr(0, out.find('\n'));
    REQUIRE(eventually([&] { return PodsIn(guard.run_id, "Pending") == workers; }, 120));
    return guard.run_id;
  };
  const std::string lost = start(check, 2);
  const std::string other = start(other_check, 1);
  REQUIRE(RunObjects(fiber::kube::kSecrets, lost).size() == 1);
  fiber.KillRun(lost);
  REQUIRE(eventually([&] { return fiber.PsOf(lost)["state"] == "master died"; }));
  CHECK(fiber.PsOf(lost)["leftovers"] == json::array({"2 pods", "its Secret holding the key"}));
  auto [listed, table, table_err] = fiber.Run({"ps"});
  CHECK_MESSAGE(table.find("left behind: 2 pods, its Secret holding the key; fiber stop " + lost) != std::string::npos,
                table);
  fiber.CheckPruned(lost, other);
  CHECK(eventually([&] { return RunObjects(fiber::kube::kPods, lost).empty(); }, 60));
  CHECK(RunObjects(fiber::kube::kSecrets, lost).empty());
  // The other run keeps its pod and its Secret.
  CHECK(PodsIn(other, "Pending") == 1);
  CHECK(RunObjects(fiber::kube::kSecrets, other).size() == 1);
  auto [stopped, stop_out, stop_err] = fiber.Run({"stop", other});
  CHECK_MESSAGE(stopped == 0, stop_err);
}

TEST_CASE("an account that may not create the run's Secret gets a 403 naming the permission, and nothing starts") {
  Fiber fiber;
  NothingLeft check{fiber, ""};
  auto [status, out, err] = fiber.Run(RunArgs({"--kubeconfig", ClusterValue("FIBER_CLUSTER_RESTRICTED_KUBECONFIG"),
                                               built_program("chatty_pool")}));
  CHECK(status != 0);
  CHECK_MESSAGE(err.find("create secrets") != std::string::npos, err);
  CHECK_MESSAGE(err.find(ClusterValue("FIBER_CLUSTER_NAMESPACE")) != std::string::npos, err);
}

TEST_CASE("pods told a loopback master address are refused before any pod starts, naming advertise_host") {
  Fiber fiber;
  NothingLeft check{fiber, ""};
  auto [status, out, err] = fiber.Run(
      RunArgs({"--host-network", "false", "--advertise-host", "127.0.0.1", built_program("chatty_pool")}));
  CHECK(status != 0);
  CHECK_MESSAGE(err.find("pods cannot connect to the master at tcp://127.0.0.1:") != std::string::npos, err);
  CHECK_MESSAGE(err.find("set advertise_host") != std::string::npos, err);
}

TEST_CASE("a pod no node can take shows the scheduler's reason while it waits, in the log and in ps") {
  Fiber fiber;
  NothingLeft check{fiber, ""};
  auto [status, out, err] = fiber.Run(RunArgs({"--detach", "--cpu", "64", built_program("hold_pool"), "1"}));
  REQUIRE_MESSAGE(status == 0, err);
  check.run_id = out.substr(0, out.find('\n'));
  auto waiting = [&] {
    const json pods = fiber.Ps()[0]["pods"];
    return pods.is_array() && pods.size() == 1 ? pods[0].value("waiting", "") : std::string();
  };
  CHECK(eventually([&] { return waiting().find("Insufficient cpu") != std::string::npos; }, 120));
  MESSAGE(waiting());
  auto [listed, table, table_err] = fiber.Run({"ps"});
  // However many nodes (kwok's, tainted, besides), each of the cluster's own lacks cpu.
  CHECK_MESSAGE(table.find("w0: not scheduled: 0/") != std::string::npos, table);
  CHECK_MESSAGE(table.find(std::to_string(fiber::testing::NodeCount()) + " Insufficient cpu") != std::string::npos,
                table);
  // The master learns of the wait from its watch, which may be behind ps's own look at the pod.
  std::string master_log;
  CHECK_MESSAGE(eventually([&] {
                  master_log = std::get<1>(fiber.Run({"logs", check.run_id}));
                  return master_log.find("waits: not scheduled") != std::string::npos;
                }, 60),
                master_log);
  auto [stopped, stop_out, stop_err] = fiber.Run({"stop", check.run_id});
  CHECK_MESSAGE(stopped == 0, stop_err);
}

TEST_CASE("a kubeconfig whose user is an exec credential plugin runs a map on pods") {
  Fiber fiber;
  NothingLeft check{fiber, ""};
  fiber::testing::TempDir dir;
  const std::string kubeconfig = fiber::testing::ExecKubeconfig(
      dir, fiber::testing::TokenPlugin(ClusterValue("FIBER_CLUSTER_FIBER_KUBECONFIG")));
  auto [status, out, err] = fiber.Run(RunArgs({"--kubeconfig", kubeconfig, built_program("chatty_pool")}));
  CHECK_MESSAGE(status == 0, err);
  CHECK(out == "result 10\nresult 20\nresult 30\nresult 40\n");
}

TEST_CASE("an image the nodes cannot pull ends the run with that reason, not a wait") {
  Fiber fiber;
  NothingLeft check{fiber, ""};
  auto [status, out, err] = fiber.Run(RunArgs({"--image", ClusterValue("FIBER_CLUSTER_REGISTRY") + "/fiber-test/absent:1",
                                               built_program("chatty_pool")}));
  CHECK(status != 0);
  CHECK_MESSAGE(err.find("/fiber-test/absent:1 cannot be pulled") != std::string::npos, err);
}

TEST_CASE("pool.resize adds pods as the pool grows and deletes them as it shrinks") {
  Fiber fiber;
  NothingLeft check{fiber, ""};
  auto child = fiber.Start(RunArgs({built_program("resize_pool")}));
  CHECK(read_line(child.stdout_fd, 180) == "workers 1");
  check.run_id = fiber.Ps()[0]["id"];
  CHECK(read_line(child.stdout_fd, 180) == "workers 3");
  CHECK(eventually([&] { return PodsIn(check.run_id, "Running") == 3; }, 60));
  const auto master = static_cast<pid_t>(fiber.Record(check.run_id)["master_pid"].get<long>());
  ::kill(master, SIGUSR1);
  CHECK(read_line(child.stdout_fd, 120) == "workers 1");
  // The pods of the workers retired are deleted, not left behind.
  CHECK(eventually([&] { return RunObjects(fiber::kube::kPods, check.run_id).size() == 1; }, 60));
  ::kill(master, SIGUSR1);
  CHECK(read_all(child.stdout_fd, 120) == "sum 20\n");
  CHECK(wait_exit(child, 60) == 0);
}

TEST_CASE("master: cluster runs the program in a pod: its output is fiber run's stdout, its exit status fiber run's") {
  Fiber fiber;
  NothingLeft check{fiber, ""};
  auto [status, out, err] = fiber.Run(RunArgs({"--master", "cluster", built_program("chatty_pool"), "3"}));
  CHECK_MESSAGE(status == 3, err);
  CHECK_MESSAGE(out.find("result 10\nresult 20\nresult 30\nresult 40\n") != std::string::npos, out);
  CHECK_MESSAGE(err.find("the master runs in pod fiber-") != std::string::npos, err);
  // Its workers' output, kept by the master where its own goes.
  CHECK_MESSAGE(out.find("] worker says") != std::string::npos, out);
  const json run = fiber.Ps()[0];
  check.run_id = run["id"];
  CHECK(run["exit_status"] == 3);
  // Its numbers stayed in the pod: ps says so rather than showing none.
  auto [shown, detail, shown_err] = fiber.Run({"ps", "--json", check.run_id});
  CHECK(json::parse(detail)["counts_unknown"] == "its master ran in the cluster and left none here");
  // The master's output is the run's master log, as for a master here.
  auto [logged, master_log, log_err] = fiber.Run({"logs", check.run_id});
  CHECK_MESSAGE(master_log.find("result 40") != std::string::npos, master_log);
}

TEST_CASE("master: cluster stopped by fiber stop: the program ends by SIGTERM in its pod, and nothing is left") {
  Fiber fiber;
  NothingLeft check{fiber, ""};
  // The cluster's own master template, and a worker template of the user's,
  // which the master in its pod must render its workers' pods from.
  fiber::testing::TempDir templates;
  const std::string config = ClusterValue("FIBER_CLUSTER_FIBER_CONFIG");
  std::ifstream master_template(config.substr(0, config.rfind('/')) + "/templates/master-pod.yaml");
  templates.write("master-pod.yaml", std::string(std::istreambuf_iterator<char>(master_template), {}));
  templates.write("worker-pod.yaml",
                  "apiVersion: v1\nkind: Pod\nmetadata: {labels: {team: rl}}\n"
                  "spec: {containers: [{name: worker, image: ''}]}\n");
  auto [status, out, err] = fiber.Run(RunArgs(
      {"--detach", "--master", "cluster", "--templates", templates.path(), built_program("hold_pool"), "1"}));
  REQUIRE_MESSAGE(status == 0, err);
  check.run_id = out.substr(0, out.find('\n'));
  // The master's pod and its worker's.
  REQUIRE(eventually([&] { return PodsIn(check.run_id, "Running") == 2; }, 180));
  for (const json& pod : RunObjects(fiber::kube::kPods, check.run_id))
    if (pod["metadata"]["labels"]["fiber.role"] == "worker") CHECK(pod["metadata"]["labels"]["team"] == "rl");
  auto [stopped, stop_out, stop_err] = fiber.Run({"stop", check.run_id});
  CHECK_MESSAGE(stopped == 0, stop_err);
  CHECK(fiber.Ps()[0]["exit_status"] == 128 + SIGTERM);
}

TEST_CASE("master: cluster whose launcher got kill -9: ps says running, prune keeps its pod and record; "
          "stop ends it and prune then removes everything") {
  Fiber fiber;
  NothingLeft check{fiber, ""};
  auto [status, out, err] = fiber.Run(RunArgs({"--detach", "--master", "cluster", built_program("hold_pool"), "1"}));
  REQUIRE_MESSAGE(status == 0, err);
  check.run_id = out.substr(0, out.find('\n'));
  const std::string id = check.run_id;
  // The master's pod and its worker's.
  REQUIRE(eventually([&] { return PodsIn(id, "Running") == 2; }, 180));
  fiber.CheckLauncherGoneKept(id);
  CHECK(PodsIn(id, "Running") == 2);
  CHECK(RunObjects(fiber::kube::kSecrets, id).size() == 1);
  fiber.CheckStoppedAndPruned(id);
  CHECK(eventually([&] { return RunObjects(fiber::kube::kPods, id).empty(); }, 60));
  CHECK(RunObjects(fiber::kube::kSecrets, id).empty());
}
