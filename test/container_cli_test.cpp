// fiber run, ps, logs and stop with workers in containers of this machine's
// Docker engine, each test's program packaged by fiber run itself: the
// engine's labels, not fiber's memory, say what a run has; a worker's output
// shows as it comes; a run's containers go when its master goes, however it
// went, with fiber run around it or not. Every test checks through the
// engine that its run left no container.
#include <doctest/doctest.h>
#include <signal.h>

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <thread>

#include "backend/container/run_containers.hpp"
#include "backend/labels.hpp"
#include "config/settings.hpp"
#include "config/variables.hpp"
#include "engine/engine_socket.hpp"
#include "engine/engine_streams.hpp"
#include "runs/run_dir.hpp"
#include "support/count.hpp"
#include "support/fiber_command.hpp"
#include "support/packaged_images.hpp"
#include "support/test_containers.hpp"
#include "support/test_image.hpp"  // TestEngine
#include "wire/credentials.hpp"

using fiber::testing::ContainersRemoved;
using fiber::testing::Count;
using fiber::testing::eventually;
using fiber::testing::Fiber;

namespace {

const fiber::engine::Client& Engine() {
  static const fiber::engine::Client engine = [] {
    // What fiber run packages of the programs these tests run.
    for (const char* program : {"hold_pool", "chatty_pool"})
      fiber::testing::RemovePackagedImagesAtExit(built_program(program));
    return fiber::testing::TestEngine();
  }();
  return engine;
}

std::vector<fiber::backend::RunContainer> ContainersOf(const std::string& run_id) {
  return fiber::testing::ContainersOf(Engine(), run_id);
}

int Running(const std::string& run_id) {
  int n = 0;
  for (const auto& c : ContainersOf(run_id)) n += c.state == "running";
  return n;
}

// Checks (bounded) that the run's containers go, and says how long after
// their master was killed they went.
void CheckGone(const std::string& run_id, std::chrono::steady_clock::time_point killed) {
  CHECK(eventually([&] { return ContainersOf(run_id).empty(); }, 60));
  MESSAGE("containers gone " << std::chrono::duration<double>(std::chrono::steady_clock::now() - killed).count()
                             << " s after their master was killed");
}

// fiber run --detach --backend docker of hold_pool with two container workers
// (in mode, when given), once both are ready; its run id.
std::string StartHeld(Fiber& fiber, ContainersRemoved& cleanup, const std::string& mode = "") {
  std::vector<std::string> args = {"run", "--detach", "--backend", fiber::testing::TestEngineName(),
                                   built_program("hold_pool"), "2"};
  if (!mode.empty()) args.push_back(mode);
  auto [status, out, err] = fiber.Run(args);
  REQUIRE_MESSAGE(status == 0, err);
  cleanup.run_id = out.substr(0, out.find('\n'));
  REQUIRE(eventually([&] { return fiber.Ps()[0]["workers_ready"] == 2; }, 120));
  return cleanup.run_id;
}

// Reads fd's lines until one holds text (bounded); true when one did, every
// line read in *seen.
bool ReadUntil(int fd, const std::string& text, std::string* seen, int seconds = 120) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  while (std::chrono::steady_clock::now() < deadline) {
    const std::string line = read_line(fd, 5);
    if (line.find(text) != std::string::npos) return true;
    if (line.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(50));  // at its end
    *seen += line + "\n";
  }
  return false;
}

// A user-defined bridge network of the engine with a subnet of its own,
// made for a test and removed after it: containers on it reach this
// machine only at its gateway.
struct BridgeNetwork {
  const std::string name = "fiber-test-bridge";
  const std::string gateway = "10.231.21.1";
  BridgeNetwork() {
    std::string err;
    fiber::http::Response answer;
    (void)Engine().Call("DELETE", "/networks/" + name, "", fiber::engine::kShortCallMs, &answer, &err);  // an earlier run's
    const nlohmann::json body = {
        {"Name", name},
        {"Driver", "bridge"},
        {"IPAM", {{"Config", {{{"Subnet", "10.231.21.0/24"}, {"Gateway", gateway}}}}}}};
    REQUIRE_MESSAGE(
        Engine().Call("POST", "/networks/create", body.dump(), fiber::engine::kLongCallMs, &answer, &err), err);
  }
  ~BridgeNetwork() {
    std::string err;
    fiber::http::Response answer;
    CHECK_MESSAGE(Engine().Call("DELETE", "/networks/" + name, "", fiber::engine::kLongCallMs, &answer, &err), err);
  }
};

// A container's description by the engine (GET /containers/ID/json).
nlohmann::json Inspect(const std::string& id) {
  std::string err;
  fiber::http::Response answer;
  REQUIRE_MESSAGE(Engine().Call("GET", "/containers/" + id + "/json", "", fiber::engine::kShortCallMs, &answer, &err),
                  err);
  return nlohmann::json::parse(answer.body);
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

TEST_CASE("fiber ps lists a container run's containers, found by label") {
  Fiber fiber;
  ContainersRemoved cleanup(Engine());
  const std::string id = StartHeld(fiber, cleanup);
  CHECK(Running(id) == 2);
  const auto run = fiber.Ps()[0];
  REQUIRE(run["containers"].size() == 2);
  for (const auto& c : run["containers"]) CHECK(c["state"] == "running");
  // fiber top shows where each worker runs: its container.
  auto [top_status, top_out, top_err] = fiber.Run({"top", "--once", "--json", id});
  REQUIRE_MESSAGE(top_status == 0, top_err);
  const nlohmann::json top = nlohmann::json::parse(top_out);
  REQUIRE(top["workers"].size() == 2);
  for (const auto& w : top["workers"]) {
    bool listed = false;
    for (const auto& c : run["containers"]) listed |= c["worker"] == w["id"] && c["id"] == w["where"];
    CHECK_MESSAGE(listed, w.dump());
  }
  auto [stopped, out, err] = fiber.Run({"stop", id});
  CHECK(stopped == 0);
}

TEST_CASE("the master SIGKILLed: its containers are gone within seconds") {
  Fiber fiber;
  ContainersRemoved cleanup(Engine());
  const std::string id = StartHeld(fiber, cleanup);
  const auto killed = std::chrono::steady_clock::now();
  fiber::testing::KillRecorded(fiber.Record(id)["master_pid"].get<long>());
  // fiber run removes them once its master has ended.
  CheckGone(id, killed);
}

TEST_CASE("launcher and master SIGKILLed: the workers lose their master and their containers go with them; "
          "logs --worker keeps what the master saw") {
  Fiber fiber;
  ContainersRemoved cleanup(Engine());
  const std::string id = StartHeld(fiber, cleanup, "talk");
  const auto record = fiber.Record(id);
  const auto killed = std::chrono::steady_clock::now();
  fiber::testing::KillRecorded(record["supervisor_pid"].get<long>());
  fiber::testing::KillRecorded(record["master_pid"].get<long>());
  // Their heartbeat timeout (5 s) ends them, and the engine removes them.
  CheckGone(id, killed);
  auto [listed, table, table_err] = fiber.Run({"ps", "-a"});
  CHECK(table.find(id) != std::string::npos);
  auto [logged, log, log_err] = fiber.Run({"logs", "--worker", "w0", id});
  CHECK_MESSAGE(logged == 0, log_err);
  CHECK_MESSAGE(log.find("worker ready to talk") != std::string::npos, log);
  auto [stopped, out, err] = fiber.Run({"stop", id});
  CHECK_MESSAGE(stopped == 0, err);
}

TEST_CASE("leftovers after kill -9 of a container run: ps names them; stop and prune reach the run's own engine, "
          "remove its containers, started or only created, and not another run's") {
  Fiber fiber;
  ContainersRemoved cleanup(Engine()), other_cleanup(Engine());
  // The runs reach the engine through a socket of their own: a shell
  // without DOCKER_HOST must still find it, and once it is gone, say so.
  std::string socket, err;
  const fiber::config::Getenv getenv = fiber::config::ProcessEnvironment;
  REQUIRE_MESSAGE(fiber::engine::FindSocket(fiber::testing::TestEngineName(), getenv, &socket, &err), err);
  const std::string link = fiber.state.path() + "/engine.sock";
  REQUIRE(::symlink(socket.c_str(), link.c_str()) == 0);
  for (const char* variable : {"DOCKER_HOST", "CONTAINER_HOST"}) fiber.env[variable] = "unix://" + link;
  auto start = [&](ContainersRemoved& guard, int workers) {
    // Workers that wait long for a lost master: their containers stay.
    auto [status, out, run_err] =
        fiber.Run({"run", "--detach", "--backend", fiber::testing::TestEngineName(), "--heartbeat-timeout", "600",
                   built_program("hold_pool"), std::to_string(workers)});
    REQUIRE_MESSAGE(status == 0, run_err);
    guard.run_id = out.substr(0, out.find('\n'));
    REQUIRE(eventually([&] { return Running(guard.run_id) == workers; }, 120));
    return guard.run_id;
  };
  const std::string lost = start(cleanup, 2);
  const std::string other = start(other_cleanup, 1);
  // A worker's container created and never started (the backend puts the
  // key in between), as a master killed then leaves it.
  std::string created;
  REQUIRE_MESSAGE(Engine().Create("fiber-" + lost + "-w2",
                                  {{"Image", fiber.Record(lost)["settings"]["image"]},
                                   {"Cmd", {"/hold_pool"}},
                                   {"Labels",
                                    {{fiber::backend::kRunLabel, lost},
                                     {fiber::backend::kRoleLabel, fiber::backend::kWorkerRole},
                                     {fiber::backend::kWorkerLabel, "w2"}}}},
                                  &created, &err),
                  err);
  fiber.KillRun(lost);
  REQUIRE(eventually([&] { return fiber.PsOf(lost)["state"] == "master died"; }));
  CHECK(fiber.PsOf(lost)["leftovers"] == nlohmann::json::array({"3 containers"}));
  // fiber top, with no master to ask, shows the engine's records and says so.
  auto [top_status, top_out, top_err] = fiber.Run({"top", "--once", lost});
  CHECK_MESSAGE(top_status == 0, top_err);
  CHECK_MESSAGE(top_out.find("note: its master does not answer (the launcher was killed): its workers as its "
                             "engine records them") != std::string::npos,
                top_out);
  for (const char* worker : {"w0", "w1", "w2"}) CHECK_MESSAGE(top_out.find(worker) != std::string::npos, top_out);
  auto [listed, table, table_err] = fiber.Run({"ps"});
  CHECK_MESSAGE(table.find("left behind: 3 containers; fiber stop " + lost) != std::string::npos, table);

  // From a shell without the run's DOCKER_HOST, its engine gone: one error
  // naming it; the record stays for a later prune.
  ::unlink(link.c_str());
  for (const char* variable : {"DOCKER_HOST", "CONTAINER_HOST"}) fiber.env.erase(variable);
  auto [stopped, stop_out, stop_err] = fiber.Run({"stop", lost});
  CHECK(stopped == 1);
  CHECK_MESSAGE(stop_err.find(link) != std::string::npos, stop_err);
  fiber.WithoutEngine();
  auto [kept, kept_out, kept_err] = fiber.Run({"prune"});
  CHECK(kept == 1);
  CHECK_MESSAGE(kept_err.find("run " + lost + " is kept") != std::string::npos, kept_err);
  CHECK_MESSAGE(kept_err.find(link) != std::string::npos, kept_err);
  CHECK(ContainersOf(lost).size() == 3);
  CHECK(!fiber.PsOf(lost).is_null());

  REQUIRE(::symlink(socket.c_str(), link.c_str()) == 0);
  auto [pruned, pruned_out, prune_err] = fiber.Run({"prune"});
  CHECK_MESSAGE(pruned == 0, prune_err);
  CHECK(pruned_out.find(lost) != std::string::npos);
  CHECK(ContainersOf(lost).empty());
  CHECK(fiber.PsOf(lost).is_null());
  auto [again, again_out, again_err] = fiber.Run({"prune"});
  CHECK_MESSAGE(again == 0, again_err);
  // The other run and its worker are untouched.
  CHECK(fiber.PsOf(other)["state"] == "running");
  CHECK(Running(other) == 1);
  auto [ended, end_out, end_err] = fiber.Run({"stop", other});
  CHECK_MESSAGE(ended == 0, end_err);
  CHECK(ContainersOf(other).empty());
}

TEST_CASE("a master SIGKILLed without fiber run around it leaves no container once its workers' "
          "heartbeat timeout has passed") {
  const std::string run_id = "ct" + fiber::runs::NewRunId();
  ContainersRemoved cleanup(Engine(), run_id);
  fiber::testing::TestImage image;
  image.programs = {built_program("hold_pool")};
  std::string reference, err;
  REQUIRE_MESSAGE(fiber::testing::BuildTestImage(Engine(), image, &reference, &err), err);
  // The program itself, with the settings fiber run would give it, but no
  // run directory: its workers' output comes on its stderr, headed.
  Child master = spawn({built_program("hold_pool"), "2", "talk"},
                       {{"FIBER_BACKEND", fiber::testing::TestEngineName()},
                        {"FIBER_IMAGE", reference},
                        {fiber::config::kRunIdVariable, run_id},
                        {fiber::config::kRunDirVariable, ""}});
  const std::string pids = read_line(master.stdout_fd, 120);  // once both workers are ready
  CHECK_MESSAGE(!pids.empty(), read_all(master.stderr_fd, 1));
  CHECK(Running(run_id) == 2);
  std::string seen;
  CHECK_MESSAGE(ReadUntil(master.stderr_fd, "] worker ready to talk", &seen), seen);
  const auto killed = std::chrono::steady_clock::now();
  ::kill(master.pid, SIGKILL);
  (void)wait_exit(master);
  ::close(master.stdout_fd);
  ::close(master.stderr_fd);
  // Their heartbeat timeout (5 s) ends them, and the engine removes them.
  CheckGone(run_id, killed);
}

TEST_CASE("a container worker's output is on fiber run's stderr and in its log file while it runs, "
          "and once in fiber logs after the run") {
  Fiber fiber;
  ContainersRemoved cleanup(Engine());
  Child run = fiber.Start({"run", "--backend", fiber::testing::TestEngineName(), built_program("hold_pool"), "1",
                           "talk"});
  std::string seen;
  const bool shown = ReadUntil(run.stderr_fd, "[w0] worker ready to talk", &seen);
  cleanup.run_id = fiber.Ps()[0]["id"];
  const std::string& id = cleanup.run_id;
  CHECK_MESSAGE(shown, seen);
  // Live: the program and its worker still run.
  CHECK(::waitpid(run.pid, nullptr, WNOHANG) == 0);
  CHECK(Running(id) == 1);
  const std::string run_dir = fiber.state.path() + "/fiber/runs/" + id;
  CHECK(ReadFile(fiber::runs::WorkerLogPath(run_dir, "w0")).find("worker ready to talk") != std::string::npos);
  auto [stopped, out, err] = fiber.Run({"stop", id});
  CHECK_MESSAGE(stopped == 0, err);
  CHECK(wait_exit(run, 60) == 128 + SIGTERM);
  ::close(run.stdout_fd);
  ::close(run.stderr_fd);
  auto [logged, log, log_err] = fiber.Run({"logs", "--worker", "w0", id});
  CHECK_MESSAGE(logged == 0, log_err);
  CHECK_MESSAGE(Count(log, "worker ready to talk") == 1, log);
}

TEST_CASE("fiber stop ends a container run and removes its containers") {
  Fiber fiber;
  ContainersRemoved cleanup(Engine());
  const std::string id = StartHeld(fiber, cleanup);
  auto [stopped, out, err] = fiber.Run({"stop", id});
  CHECK_MESSAGE(stopped == 0, err);
  CHECK(fiber.Ps()[0]["exit_status"] == 128 + SIGTERM);
  CHECK(ContainersOf(id).empty());
}

TEST_CASE("fiber logs --worker shows a container worker's output after its container is gone") {
  Fiber fiber;
  ContainersRemoved cleanup(Engine());
  auto [status, out, err] = fiber.Run(
      {"run", "--backend", fiber::testing::TestEngineName(), built_program("chatty_pool")});
  CHECK_MESSAGE(status == 0, err);
  CHECK(out.find("result 40") != std::string::npos);
  cleanup.run_id = fiber.Ps()[0]["id"];
  CHECK(ContainersOf(cleanup.run_id).empty());
  // Which worker ran which task is the pool's choice (one whose container
  // started late may run none): every task's line is in one of the two.
  std::string both;
  for (const char* worker : {"w0", "w1"}) {
    auto [one, worker_log, one_err] = fiber.Run({"logs", "--worker", worker, cleanup.run_id});
    CHECK_MESSAGE(one == 0, worker << ": " << one_err);
    both += worker_log;
  }
  for (int x = 1; x <= 4; ++x)
    CHECK_MESSAGE(both.find("worker says " + std::to_string(x) + "\n") != std::string::npos, both);
}

TEST_CASE("fiber run with an image the engine lacks fails with that cause, at once") {
  Fiber fiber;
  ContainersRemoved cleanup(Engine());
  auto [status, out, err] = fiber.Run({"run", "--backend", fiber::testing::TestEngineName(), "--image", "fiber-test:absent",
                                       built_program("chatty_pool")});
  CHECK(status != 0);
  CHECK_MESSAGE(err.find("image 'fiber-test:absent' is not in the engine") != std::string::npos, err);
  cleanup.run_id = fiber.Ps()[0]["id"];
}

TEST_CASE("workers on a user-defined bridge network reach a master listening on its gateway; "
          "a container there with another run's key is refused") {
  BridgeNetwork network;
  Fiber fiber;
  ContainersRemoved cleanup(Engine());
  // Podman makes a network's bridge, and its gateway address, only as the
  // network's first container starts: its master listens on every address
  // and tells its workers the gateway.
  std::vector<std::string> listen = {"--listen-host", network.gateway};
  if (fiber::testing::TestEngineName() == "podman")
    listen = {"--listen-host", "0.0.0.0", "--advertise-host", network.gateway};
  std::vector<std::string> args = {"run", "--detach", "--backend", fiber::testing::TestEngineName(),
                                   "--network", network.name};
  args.insert(args.end(), listen.begin(), listen.end());
  args.insert(args.end(), {built_program("hold_pool"), "2"});
  auto [status, out, err] = fiber.Run(args);
  REQUIRE_MESSAGE(status == 0, err);
  cleanup.run_id = out.substr(0, out.find('\n'));
  REQUIRE(eventually([&] { return fiber.Ps()[0]["workers_ready"] == 2; }, 120));
  const auto containers = ContainersOf(cleanup.run_id);
  REQUIRE(containers.size() == 2);
  const nlohmann::json worker = Inspect(containers[0].id);
  // (Podman's inspect says NetworkMode "bridge" for any bridge network.)
  const std::string address = worker["NetworkSettings"]["Networks"][network.name]["IPAddress"];
  CHECK_MESSAGE(address.rfind("10.231.21.", 0) == 0, address);

  // The same worker program on the same network, told the same master,
  // with a key of its own: the master never lets it in, and it gives up.
  fiber::wire::Credentials other;
  std::string key_err;
  REQUIRE_MESSAGE(fiber::wire::Credentials::Generate(&other, &key_err), key_err);
  nlohmann::json env = nlohmann::json::array({std::string(fiber::config::kSecretVariable) + "=" + other.client_secret,
                                              std::string(fiber::config::kStartTimeout) + "=3s"});
  for (const std::string kv : worker["Config"]["Env"])
    if (kv.rfind(std::string(fiber::config::kSecretFileVariable) + "=", 0) != 0 &&
        kv.rfind(std::string(fiber::config::kStartTimeout) + "=", 0) != 0)
      env.push_back(kv);
  const nlohmann::json config = {{"Image", worker["Config"]["Image"]},
                                 {"Entrypoint", worker["Config"]["Entrypoint"]},
                                 {"Cmd", worker["Config"]["Cmd"]},
                                 {"Env", env},
                                 {"HostConfig", {{"NetworkMode", network.name}}}};
  std::string stranger, engine_err;
  REQUIRE_MESSAGE(Engine().Create("fiber-test-stranger", config, &stranger, &engine_err), engine_err);
  CHECK_MESSAGE(Engine().Start(stranger, &engine_err), engine_err);
  long code = 0;
  CHECK_MESSAGE(Engine().Wait(stranger, 60000, &code, &engine_err), engine_err);
  std::string said;
  CHECK(fiber::engine::Logs(Engine(), stranger, 20, [&](std::string_view text) { said += text; }, &engine_err));
  CHECK_MESSAGE(code != 0, said);
  // Its handshake went unanswered, on the network the run's workers use
  // ("cannot reach the master at ...", or "lost the master at ...").
  CHECK_MESSAGE(said.find(" the master at tcp://" + network.gateway + ":") != std::string::npos, said);
  (void)Engine().Remove(stranger, &engine_err);
  CHECK(fiber.Ps()[0]["workers_ready"] == 2);
  auto [stopped, stop_out, stop_err] = fiber.Run({"stop", cleanup.run_id});
  CHECK_MESSAGE(stopped == 0, stop_err);
}

TEST_CASE("a container network with the master on a loopback address is refused before any container starts") {
  Fiber fiber;
  ContainersRemoved cleanup(Engine());
  auto [status, out, err] = fiber.Run({"run", "--backend", fiber::testing::TestEngineName(), "--network",
                                       "fiber-test-bridge", built_program("chatty_pool")});
  CHECK(status != 0);
  CHECK_MESSAGE(err.find("workers on the container network fiber-test-bridge cannot connect to the master at "
                         "tcp://127.0.0.1:") != std::string::npos,
                err);
  cleanup.run_id = fiber.Ps()[0]["id"];
  CHECK(ContainersOf(cleanup.run_id).empty());
}
