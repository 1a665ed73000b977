// Workers as containers of the real Docker engine of this machine: a pool's
// results, a shared value fetched once per container, a worker container
// killed mid-map, the run's secret kept out of what the engine shows, one
// clear error for each way a worker cannot start, and how a worker ended,
// with its output, once the engine has removed its container. Every test
// removes the containers of its run, and checks by label that none is left.
#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fiber/fiber.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <numeric>
#include <set>
#include <thread>

#include "backend/container/container_backend.hpp"
#include "backend/container/container_events.hpp"
#include "backend/labels.hpp"
#include "backend/container/run_containers.hpp"
#include "config/settings.hpp"
#include "config/variables.hpp"
#include "engine/engine_socket.hpp"
#include "engine/engine_streams.hpp"
#include "master/run.hpp"
#include "runs/run_dir.hpp"
#include "support/test_containers.hpp"
#include "support/temp_dir.hpp"
#include "support/test_image.hpp"
#include "tasks.hpp"
#include "wire/credentials.hpp"
#include "support/range.hpp"

using fiber::backend::ContainerBackend;
using fiber::testing::BuildTestImage;
using fiber::testing::eventually;
using fiber::testing::ContainersRemoved;
using fiber::testing::TestEngine;
using fiber::testing::TestEngineName;
using fiber::testing::TestImage;

namespace {

const fiber::engine::Client& Engine() {
  static const fiber::engine::Client engine = TestEngine();
  return engine;
}

std::string ImageOf(TestImage image) { return fiber::testing::ImageOfThisProgram(Engine(), image); }

std::vector<fiber::backend::RunContainer> ContainersOf(const std::string& run_id) {
  return fiber::testing::ContainersOf(Engine(), run_id);
}

// This program's run, with its pools' workers in containers of the test
// image: set before the run's first pool, which fixes its settings.
const std::string& ContainerRun() {
  static const std::string run_id = fiber::testing::StartContainerRun(Engine());
  return run_id;
}

fiber::PoolOptions InContainers(int processes) {
  ContainerRun();
  fiber::PoolOptions options;
  options.processes = processes;
  options.backend = TestEngineName();
  return options;
}


void WaitReady(fiber::Pool& pool, int n) {
  REQUIRE(eventually([&] {
    int ready = 0;
    for (const auto& w : pool.workers()) ready += w.state == fiber::WorkerState::kReady;
    return ready == n;
  }));
}

// A worker's launch for a backend driven directly: a run of its own, a
// master nobody serves.
fiber::backend::Launch TestLaunch(const std::string& run_id) {
  fiber::wire::Credentials keys;
  std::string err;
  REQUIRE(fiber::wire::Credentials::Generate(&keys, &err));
  fiber::backend::Launch launch;
  auto& b = launch.bootstrap;
  b.run_id = run_id;
  b.worker_id = "w1";
  b.master = "tcp://127.0.0.1:1";
  b.client_secret = keys.client_secret;
  b.heartbeat_interval = std::chrono::milliseconds(500);
  b.heartbeat_timeout = std::chrono::milliseconds(5000);
  b.start_timeout = std::chrono::milliseconds(3000);
  return launch;
}

fiber::config::Settings WithImage(const std::string& image) {
  fiber::config::Settings s;
  s.backend = TestEngineName();
  s.image = image;
  return s;
}

// The first exit the backend reports (bounded).
fiber::backend::Exit FirstExit(fiber::backend::Backend& backend) {
  std::vector<fiber::backend::Exit> exits;
  REQUIRE(eventually([&] {
    exits = backend.Poll();
    return !exits.empty();
  }));
  return exits.front();
}

// Why the backend could not start launch's worker: Start accepts it, at
// once, and its end through Poll says why, as a refused start did.
std::string RefusedStart(fiber::backend::Backend& backend, const fiber::backend::Launch& launch) {
  std::string err;
  REQUIRE_MESSAGE(backend.Start(launch, &err), err);
  const fiber::backend::Exit exit = FirstExit(backend);
  CHECK(exit.worker_id == launch.bootstrap.worker_id);
  CHECK(exit.not_started);
  CHECK(std::string(exit.cause.word) == fiber::backend::end_word::kCannotStart);
  CHECK(ContainersOf(launch.bootstrap.run_id).empty());
  return exit.cause.text;
}

}  // namespace

TEST_CASE("a pool map whose workers are containers returns every result in order") {
  ContainersRemoved cleanup(Engine(), ContainerRun());
  fiber::Pool pool(InContainers(2));
  WaitReady(pool, 2);
  int running = 0;
  for (const auto& c : ContainersOf(ContainerRun())) running += c.state == "running";
  CHECK(running == 2);
  const auto results = pool.map(square, range(200));
  REQUIRE(results.size() == 200);
  for (int i = 0; i < 200; ++i) CHECK(results[i] == i * i);
  pool.close();
  pool.join();
}

TEST_CASE("worker containers fetch a shared value from the master once each, and read it whole") {
  ContainersRemoved cleanup(Engine(), ContainerRun());
  fiber::Pool pool(InContainers(2));
  const std::vector<std::uint32_t> numbers = shared_numbers(1 << 18);
  auto shared = fiber::share(numbers);
  std::vector<std::tuple<fiber::Shared<std::vector<std::uint32_t>>, int>> items;
  for (int i = 0; i < 40; ++i) items.emplace_back(shared, i);
  for (const auto& [sum, mapped, fetched] : pool.starmap(read_shared, items)) {
    CHECK(sum == checksum(numbers));
    CHECK(mapped == 0);  // another PID namespace: the master's memfd is not there to read
    CHECK(fetched == 1);
  }
  pool.close();
  pool.join();
}

TEST_CASE("a worker container killed mid-map has its tasks run again; every result once") {
  ContainersRemoved cleanup(Engine(), ContainerRun());
  fiber::PoolOptions options = InContainers(2);
  options.max_task_retries = 10;
  fiber::Pool pool(options);
  WaitReady(pool, 2);
  const int n = 600;
  auto results = pool.imap_unordered(slow_square, range(n));
  std::multiset<int> seen;
  for (int i = 0; i < n; ++i) {
    auto v = results.next(std::chrono::seconds(120));
    REQUIRE(v.has_value());
    seen.insert(*v);
    if (i == 100) {
      fiber::testing::KillOneRunning(Engine(), ContainerRun());
    }
  }
  std::multiset<int> expected;
  for (int i = 0; i < n; ++i) expected.insert(i * i);
  CHECK(seen == expected);
}

TEST_CASE("a task running past task_timeout in a container fails with TimeoutError; a new container replaces it") {
  ContainersRemoved cleanup(Engine(), ContainerRun());
  fiber::PoolOptions options = InContainers(1);
  options.task_timeout = std::chrono::milliseconds(500);
  fiber::Pool pool(options);
  WaitReady(pool, 1);
  const std::string first = pool.workers().at(0).id;
  CHECK_THROWS_AS(pool.apply(sleep_ms, 600000), fiber::TimeoutError);
  CHECK(pool.apply(square, 7) == 49);  // on its replacement
  CHECK(pool.workers().at(0).id != first);
  pool.close();
  pool.join();
}

TEST_CASE("the run's secret is in neither a worker container's inspect output nor its log") {
  ContainersRemoved cleanup(Engine(), ContainerRun());
  fiber::Pool pool(InContainers(1));
  WaitReady(pool, 1);
  const std::string secret = fiber::master::Run::Get().bootstrap().client_secret;
  REQUIRE(secret.size() == 40);
  const auto containers = ContainersOf(ContainerRun());
  REQUIRE(containers.size() == 1);
  const std::string id = containers.front().id;
  fiber::http::Response inspect;
  std::string err;
  REQUIRE_MESSAGE(Engine().Call("GET", "/containers/" + id + "/json", {}, 5000, &inspect, &err), err);
  CHECK(inspect.body.find(secret) == std::string::npos);
  // Nor is the master's public key, which derives from the secret.
  fiber::wire::Credentials keys;
  REQUIRE(fiber::wire::Credentials::FromClientKey(secret, &keys, &err));
  CHECK(inspect.body.find(keys.server_public) == std::string::npos);
  CHECK(inspect.body.find(std::string(fiber::config::kSecretFileVariable) + "=") != std::string::npos);
  CHECK(inspect.body.find(std::string(fiber::config::kSecretVariable) + "=") == std::string::npos);
  std::string log;
  REQUIRE_MESSAGE(fiber::engine::Logs(Engine(), id, 0, [&](std::string_view text) { log.append(text); }, &err), err);
  CHECK(log.find(secret) == std::string::npos);
  // The worker removed the key's file once it had read it.
  bool exists = true;
  REQUIRE_MESSAGE(Engine().PathExists(id, fiber::backend::kSecretFile, &exists, &err), err);
  CHECK_FALSE(exists);
}

TEST_CASE("an image the engine does not have is named as the cause, at once") {
  const std::string run_id = "ct" + fiber::runs::NewRunId();
  ContainersRemoved cleanup(Engine(), run_id);
  ContainerBackend backend(TestEngineName(), WithImage("fiber-test:no-such-image"));
  const std::string err = RefusedStart(backend, TestLaunch(run_id));
  CHECK_MESSAGE(err.find("image 'fiber-test:no-such-image' is not in the engine") != std::string::npos, err);
}

TEST_CASE("a program missing from its image is named") {
  const std::string run_id = "ct" + fiber::runs::NewRunId();
  ContainersRemoved cleanup(Engine(), run_id);
  TestImage image;
  image.without_programs = true;
  const std::string reference = ImageOf(image);
  ContainerBackend backend(TestEngineName(), WithImage(reference));
  const std::string err = RefusedStart(backend, TestLaunch(run_id));
  CHECK_MESSAGE(err.find("the program /") != std::string::npos, err);
  CHECK_MESSAGE(err.find("container_test is not in image " + reference) != std::string::npos, err);
}

TEST_CASE("a dynamic loader missing from its image is named") {
  const std::string run_id = "ct" + fiber::runs::NewRunId();
  ContainersRemoved cleanup(Engine(), run_id);
  TestImage image;
  image.without_loader = true;
  ContainerBackend backend(TestEngineName(), WithImage(ImageOf(image)));
  const std::string err = RefusedStart(backend, TestLaunch(run_id));
  CHECK_MESSAGE(err.find("the program's dynamic loader /lib64/ld-linux-x86-64.so.2 is not in image") !=
                    std::string::npos,
                err);
}

TEST_CASE("a library missing from its image is named by the worker's last output") {
  const std::string run_id = "ct" + fiber::runs::NewRunId();
  ContainersRemoved cleanup(Engine(), run_id);
  TestImage image;
  image.without_library = "libzmq.so.5";
  ContainerBackend backend(TestEngineName(), WithImage(ImageOf(image)));
  std::string err;
  REQUIRE_MESSAGE(backend.Start(TestLaunch(run_id), &err), err);
  const auto exit = FirstExit(backend);
  CHECK(exit.worker_id == "w1");
  CHECK(exit.status == fiber::ExitStatus::Exited(127));
  CHECK_MESSAGE(exit.cause.text.find("exit status 127") != std::string::npos, exit.cause.text);
  CHECK_MESSAGE(exit.cause.text.find("libzmq.so.5") != std::string::npos, exit.cause.text);
}

TEST_CASE("a worker container that exits at once shows its last output, which its log file keeps") {
  const std::string run_id = "ct" + fiber::runs::NewRunId();
  ContainersRemoved cleanup(Engine(), run_id);
  ContainerBackend backend(TestEngineName(), WithImage(ImageOf({})));
  auto launch = TestLaunch(run_id);
  launch.bootstrap.client_secret = "not a key";
  fiber::testing::TempDir dir;
  launch.log_file = dir.path() + "/w1.log";
  std::string err;
  REQUIRE_MESSAGE(backend.Start(launch, &err), err);
  const auto exit = FirstExit(backend);
  CHECK(exit.status == fiber::ExitStatus::Exited(2));
  CHECK_MESSAGE(exit.cause.text.find("exit status 2") != std::string::npos, exit.cause.text);
  const std::string said = "FIBER_CLIENT_KEY_FILE names a file without a 40-character Z85 CURVE key";
  CHECK_MESSAGE(exit.cause.text.find(said) != std::string::npos, exit.cause.text);
  // The engine removes the container as it ends; its output was kept as it came.
  CHECK(eventually([&] { return ContainersOf(run_id).empty(); }));
  std::ifstream in(launch.log_file);
  const std::string log((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK_MESSAGE(log.find(said) != std::string::npos, log);
}

TEST_CASE("a worker container whose master never answers ends, and is removed") {
  const std::string run_id = "ct" + fiber::runs::NewRunId();
  ContainersRemoved cleanup(Engine(), run_id);
  ContainerBackend backend(TestEngineName(), WithImage(ImageOf({})));
  std::string err;
  REQUIRE_MESSAGE(backend.Start(TestLaunch(run_id), &err), err);
  const auto exit = FirstExit(backend);
  CHECK(exit.status == fiber::ExitStatus::Exited(1));
  CHECK_MESSAGE(exit.cause.text.find("exit status 1") != std::string::npos, exit.cause.text);
  CHECK(eventually([&] { return ContainersOf(run_id).empty(); }));
}

TEST_CASE("the engine's events tell how a removed container ended: its exit code, and a kill for its memory "
          "limit where the engine says so") {
  const std::string run_id = "ct" + fiber::runs::NewRunId();
  ContainersRemoved cleanup(Engine(), run_id);
  fiber::backend::ContainerEvents events(Engine(), run_id);
  TestImage image;
  image.programs = {built_program("image_probe")};
  std::string reference, id, err;
  REQUIRE_MESSAGE(BuildTestImage(Engine(), image, &reference, &err), err);
  const nlohmann::json config = {
      {"Image", reference},
      {"Entrypoint", {std::filesystem::canonical(built_program("image_probe")).string(), "--fill-mib", "512"}},
      {"Labels", {{fiber::backend::kRunLabel, run_id}}},
      {"HostConfig", {{"AutoRemove", true}, {"Memory", 64 << 20}}}};
  REQUIRE_MESSAGE(Engine().Create("fiber-" + run_id + "-oom", config, &id, &err), err);
  REQUIRE_MESSAGE(Engine().Start(id, &err), err);
  REQUIRE(eventually([&] { return events.EndOf(id).has_value(); }, 60));
  const auto end = *events.EndOf(id);
  CHECK(end.exit_code == 128 + 9);
  // Podman 4.3 sends no oom event: the kernel's SIGKILL is all it tells.
  CHECK(end.oom_killed == (TestEngineName() == "docker"));
  CHECK(eventually([&] { return ContainersOf(run_id).empty(); }));
}

TEST_CASE("no engine at the configured socket is named as the cause") {
  const fiber::config::Getenv getenv = [](const char* name) -> const char* {
    return std::string(name) == "DOCKER_HOST" ? "unix:///nonexistent/docker.sock" : nullptr;
  };
  fiber::engine::Client client;
  std::string err;
  CHECK_FALSE(fiber::engine::Client::Connect("docker", getenv, &client, &err));
  CHECK_MESSAGE(err.find("no container engine") != std::string::npos, err);
  CHECK_MESSAGE(err.find("/nonexistent/docker.sock") != std::string::npos, err);
}

TEST_CASE("a socket this user may not use is named, with permission denied") {
  // As an unprivileged user: root may use any socket.
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    ::close(fds[0]);
    std::string socket, err = "could not become nobody";
    const fiber::config::Getenv getenv = [](const char*) -> const char* { return nullptr; };
    if (::setgid(65534) == 0 && ::setuid(65534) == 0)
      (void)fiber::engine::FindSocket("docker", getenv, &socket, &err);
    (void)!::write(fds[1], err.data(), err.size());
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string err;
  char buf[512];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) err.append(buf, n);
  ::close(fds[0]);
  ::waitpid(child, nullptr, 0);
  CHECK_MESSAGE(err.find("permission denied on the container engine's socket /var/run/docker.sock") !=
                    std::string::npos,
                err);
}
