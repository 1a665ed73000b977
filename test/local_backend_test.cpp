// The local backend and its fork server, driven directly: workers forked
// with their environment, output and memory bound; every end reported once,
// however many end at once; nothing left running.
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <chrono>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include "backend/local/local_backend.hpp"
#include "support/temp_dir.hpp"
#include "worker/serve_loop.hpp"

namespace {

using fiber::backend::Exit;
using fiber::backend::Launch;
using fiber::backend::LocalBackend;

// A worker with no bootstrap: it exits at once with kBadBootstrap, after one
// line on stderr naming the first variable missing.
Launch BadWorker(const std::string& id) {
  Launch launch;
  launch.bootstrap.worker_id = id;
  return launch;
}

// A worker whose master never answers: it waits for it (up to a minute).
Launch WaitingWorker(const std::string& id) {
  Launch launch;
  launch.bootstrap.worker_id = id;
  launch.bootstrap.master = "tcp://127.0.0.1:9";
  launch.bootstrap.run_id = "r";
  launch.bootstrap.client_secret = std::string(40, 'b');
  launch.bootstrap.heartbeat_interval = std::chrono::milliseconds(1000);
  launch.bootstrap.heartbeat_timeout = std::chrono::milliseconds(3000);
  launch.bootstrap.start_timeout = std::chrono::milliseconds(60000);
  return launch;
}

// Polls until n exits are reported; fails after 60 s instead of hanging.
std::map<std::string, Exit> WaitForExits(LocalBackend& backend, std::size_t n) {
  std::map<std::string, Exit> exits;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (exits.size() < n && std::chrono::steady_clock::now() < deadline) {
    for (auto& e : backend.Poll()) {
      CHECK_MESSAGE(exits.count(e.worker_id) == 0, "reported twice: " << e.worker_id);
      exits[e.worker_id] = e;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return exits;
}

}  // namespace

TEST_CASE("many ends reported while the master kills and starts others: each once, nothing hangs") {
  // More kills and ends than a local socket holds packets at once
  // (net.unix.max_dgram_qlen, 10): neither side may wait on the other.
  LocalBackend backend;
  std::string err;
  for (int i = 0; i < 52; ++i)
    REQUIRE_MESSAGE(backend.Start(WaitingWorker("a" + std::to_string(i)), &err), err);
  for (int i = 0; i < 40; ++i) backend.Kill("a" + std::to_string(i));
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // 40 ends, none taken yet
  for (int i = 40; i < 52; ++i) backend.Kill("a" + std::to_string(i));
  for (int i = 0; i < 40; ++i)
    REQUIRE_MESSAGE(backend.Start(BadWorker("b" + std::to_string(i)), &err), err);
  const auto exits = WaitForExits(backend, 92);
  REQUIRE(exits.size() == 92);
  for (const auto& [id, e] : exits) {
    if (id[0] == 'a') {
      CHECK_MESSAGE(e.status == fiber::ExitStatus::Killed(SIGKILL), id << ": " << e.cause.text);
      CHECK(e.cause == fiber::backend::EndCause{fiber::backend::end_word::kSignal, "killed by SIGKILL"});
    } else {
      CHECK_MESSAGE(e.status == fiber::ExitStatus::Exited(fiber::worker::kBadBootstrap), id << ": " << e.cause.text);
    }
  }
}

TEST_CASE("a worker's output goes to its log file") {
  fiber::testing::TempDir dir;
  LocalBackend backend;
  Launch launch = BadWorker("w0");
  launch.log_file = dir.path() + "/w0.log";
  std::string err;
  REQUIRE_MESSAGE(backend.Start(launch, &err), err);
  REQUIRE(WaitForExits(backend, 1).size() == 1);
  std::ifstream in(launch.log_file);
  std::stringstream text;
  text << in.rdbuf();
  CHECK(text.str().find("FIBER_RUN_ID is not set") != std::string::npos);
}

TEST_CASE("a log file that cannot be opened is a clear error at start") {
  LocalBackend backend;
  Launch launch = BadWorker("w0");
  launch.log_file = "/nonexistent-dir/w0.log";
  std::string err;
  CHECK_FALSE(backend.Start(launch, &err));
  CHECK(err.find("/nonexistent-dir/w0.log") != std::string::npos);
  CHECK(backend.Poll().empty());
}

TEST_CASE("a memory bound above the hard limit is a clear error at start") {
  struct rlimit limit {};
  REQUIRE(::getrlimit(RLIMIT_AS, &limit) == 0);
  LocalBackend backend;
  Launch launch = BadWorker("w0");
  std::string err;
  if (limit.rlim_max == RLIM_INFINITY) {
    // Nothing to exceed here: a bound is applied and the worker still runs.
    launch.resources.memory_mb = 4096;
    CHECK_MESSAGE(backend.Start(launch, &err), err);
    CHECK(WaitForExits(backend, 1).size() == 1);
    return;
  }
  launch.resources.memory_mb = static_cast<std::int64_t>(limit.rlim_max >> 20) + 1;
  CHECK_FALSE(backend.Start(launch, &err));
  CHECK(err.find("hard limit") != std::string::npos);
}

TEST_CASE("KillAll ends every worker and the fork server before it returns") {
  auto backend = std::make_unique<LocalBackend>();
  const Launch launch = WaitingWorker("w0");
  std::string err;
  REQUIRE_MESSAGE(backend->Start(launch, &err), err);
  backend->KillAll();
  CHECK(backend->Poll().empty());
  // Nothing of it is left: the worker's exit was reaped by the server, the
  // server's by the backend (a zombie would still be a child of ours).
  CHECK(::waitpid(-1, nullptr, WNOHANG) < 0);
}
