// Workers that die or stop answering: their tasks run again elsewhere, every
// result arrives exactly once, and nothing hangs.
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fiber/fiber.hpp>

#include <chrono>
#include <numeric>
#include <set>
#include <thread>

#include "process_probe.hpp"
#include "tasks.hpp"
#include "support/range.hpp"

namespace {


// Pids of all connected workers, waiting (bounded) until there are n.
std::vector<long> connected_pids(fiber::Pool& pool, std::size_t n) {
  for (int i = 0; i < 600; ++i) {
    std::vector<long> pids;
    for (const auto& w : pool.workers())
      if (w.pid > 0) pids.push_back(w.pid);
    if (pids.size() >= n) return pids;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  FAIL("workers did not connect within 30 s");
  return {};
}

// The pid of a worker holding a task (other than not, a worker killed
// already), waiting (bounded) until one does; 0 when none does within 30 s.
long busy_worker_pid(fiber::Pool& pool, long not_this = 0) {
  for (int i = 0; i < 3000; ++i) {
    for (const auto& w : pool.workers())
      if (w.running > 0 && w.pid > 0 && w.pid != not_this) return w.pid;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return 0;
}

// AddressSanitizer turns a SIGSEGV into its own report and exit status 1;
// it leaves SIGABRT alone, so a sanitized build crashes the worker with that.
#if defined(__SANITIZE_ADDRESS__)
constexpr int kCrash = SIGABRT;
constexpr const char* kCrashName = "SIGABRT";
#else
constexpr int kCrash = SIGSEGV;
constexpr const char* kCrashName = "SIGSEGV";
#endif

int crash_on_three(int x) {
  if (x == 3) ::raise(kCrash);
  return x;
}
FIBER_TASK(crash_on_three);

}  // namespace

TEST_CASE("a task that crashes every worker it is given fails naming the signal, task and item") {
  fiber::PoolOptions options;
  options.processes = 2;
  options.max_task_retries = 1;
  fiber::Pool pool(options);
  // One chunk: what the worker runs when it dies is certain (with several
  // held, a result can die unsent with its worker).
  // A task's name is its function's, qualified by where FIBER_TASK stands.
  const auto lost_report = [](const auto& call) -> std::string {
    try {
      call();
    } catch (const fiber::WorkerLost& e) {
      return e.what();
    }
    return "(no WorkerLost)";
  };
  const std::string whole = lost_report([&] { pool.map(crash_on_three, range(6), 6); });
  const std::string killed = std::string("killed by ") + kCrashName + " while running crash_on_three@faults_test.cpp:";
  CHECK_MESSAGE(whole.find(killed) != std::string::npos, whole);
  CHECK_MESSAGE(whole.find(" (items 0-5)") != std::string::npos, whole);
  const std::string one = lost_report([&] { pool.apply(crash_on_three, 3); });
  CHECK_MESSAGE(one.find(killed) != std::string::npos, one);
  CHECK_MESSAGE(one.find(" (item 0)") != std::string::npos, one);
  CHECK(pool.apply(square, 5) == 25);  // the pool goes on with new workers
}

TEST_CASE("tasks of SIGKILLed workers run elsewhere; all results correct, none twice") {
  fiber::PoolOptions options;
  options.processes = 4;
  options.max_task_retries = 10;
  fiber::Pool pool(options);
  auto pids = connected_pids(pool, 4);
  const int n = 3000;
  auto results = pool.imap_unordered(slow_square, range(n));
  std::multiset<int> seen;
  int killed = 0;
  for (int i = 0; i < n; ++i) {
    auto v = results.next(std::chrono::seconds(120));
    REQUIRE(v.has_value());
    seen.insert(*v);
    // Kill a worker mid-map, three times over.
    if (i == 300 || i == 1200 || i == 2100) {
      ::kill(static_cast<pid_t>(pids[killed % pids.size()]), SIGKILL);
      ++killed;
      pids = connected_pids(pool, 3);
    }
  }
  CHECK_FALSE(results.next().has_value());
  std::multiset<int> expected;
  for (int i = 0; i < n; ++i) expected.insert(i * i);
  CHECK(seen == expected);
  // Killed workers were replaced.
  CHECK(connected_pids(pool, 4).size() == 4);
  CHECK(pool.map(square, range(100)).size() == 100);
}

TEST_CASE("map survives SIGKILL of a worker holding tasks") {
  fiber::Pool pool(3);
  auto pids = connected_pids(pool, 3);
  auto pending = pool.map_async(sleep_ms, std::vector<int>(60, 20), 1);
  const long pid = busy_worker_pid(pool);
  REQUIRE(pid != 0);
  ::kill(static_cast<pid_t>(pid), SIGKILL);
  CHECK(pending.get() == std::vector<int>(60, 20));
}

TEST_CASE("a chunk of map lost with a killed worker runs again: every result once, in order") {
  fiber::Pool pool(3);
  connected_pids(pool, 3);
  // Default chunking: 12 chunks of 50 calls of 2 ms, each run as one unit.
  auto pending = pool.map_async(slow_square, range(600));
  const long pid = busy_worker_pid(pool);
  REQUIRE(pid != 0);
  ::kill(static_cast<pid_t>(pid), SIGKILL);
  std::vector<int> expected;
  for (int i = 0; i < 600; ++i) expected.push_back(i * i);
  CHECK(pending.get(std::chrono::seconds(120)) == expected);
}

TEST_CASE("local workers killed with their fork server are replaced and the map completes") {
  fiber::Pool pool(3);
  connected_pids(pool, 3);
  const int server = pool.apply(parent_pid_task);
  REQUIRE(server > 1);
  REQUIRE(server != ::getpid());
  auto pending = pool.map_async(sleep_ms, std::vector<int>(60, 20), 1);
  REQUIRE(busy_worker_pid(pool) != 0);  // mid-map
  ::kill(server, SIGKILL);
  CHECK(pending.get() == std::vector<int>(60, 20));
  // The new workers have a new fork server.
  connected_pids(pool, 3);
  CHECK(pool.apply(parent_pid_task) != server);
}

TEST_CASE("forty workers killed at once, while others start, are all replaced") {
  // Their ends are reported while replacements are being started: more
  // reports than a local socket holds at once.
  fiber::PoolOptions options;
  options.processes = 40;
  options.max_task_retries = 10;
  fiber::Pool pool(options);
  for (int round = 0; round < 3; ++round) {
    const auto pids = connected_pids(pool, 40);
    auto pending = pool.map_async(sleep_ms, std::vector<int>(200, 5), 1);
    for (long pid : pids) ::kill(static_cast<pid_t>(pid), SIGKILL);
    CHECK(pending.get() == std::vector<int>(200, 5));
  }
}

TEST_CASE("a task lost more often than the retry limit fails with WorkerLost") {
  fiber::PoolOptions options;
  options.processes = 1;
  options.max_task_retries = 1;
  fiber::Pool pool(options);
  auto r = pool.apply_async(sleep_ms, 60000);
  long killed = 0;
  for (int kill = 0; kill < 2; ++kill) {
    // Wait until the task is leased (again, to another worker than the one
    // killed), then kill the worker holding it.
    const long pid = busy_worker_pid(pool, killed);
    REQUIRE(pid != 0);
    ::kill(static_cast<pid_t>(pid), SIGKILL);
    killed = pid;
  }
  CHECK_THROWS_WITH_AS(r.get(std::chrono::seconds(60)), doctest::Contains("lost with its worker 2 times"),
                       fiber::WorkerLost);
  CHECK(pool.apply(square, 5) == 25);  // the pool goes on with a new worker
}

TEST_CASE("a SIGSTOPped worker is found silent by heartbeat and replaced") {
  fiber::Pool pool(2);
  auto pids = connected_pids(pool, 2);
  ::kill(static_cast<pid_t>(pids[0]), SIGSTOP);
  // Every task completes though one worker holds some of them, stopped.
  auto results = pool.map(sleep_ms, std::vector<int>(20, 10), 1);
  CHECK(results == std::vector<int>(20, 10));
  // It was killed (a stopped process cannot come back with stale results).
  for (int i = 0; i < 600 && process_alive(pids[0]); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  CHECK_FALSE(process_alive(pids[0]));
}

TEST_CASE("resize grows and shrinks the pool while a map runs, losing nothing") {
  fiber::Pool pool(2);
  auto pending = pool.map_async(slow_square, range(1500), 1);
  pool.resize(5);
  CHECK(pool.size() == 5);
  connected_pids(pool, 5);
  pool.resize(1);
  const auto values = pending.get();
  for (int i = 0; i < 1500; ++i) REQUIRE(values[i] == i * i);
  // Shrunk to one worker in the end.
  for (int i = 0; i < 600 && pool.workers().size() != 1; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  CHECK(pool.workers().size() == 1);
  CHECK_THROWS_AS(pool.resize(0), fiber::ConfigError);
}
