// Tasks that misbehave, on real worker processes: one that runs too long
// (task_timeout), workers replaced after a number of tasks
// (max_tasks_per_child), and a task stuck behind a slow one (work stealing).
#include <doctest/doctest.h>

#include <fiber/fiber.hpp>

#include <chrono>
#include <fstream>
#include <map>
#include <numeric>
#include <set>
#include <thread>

#include "support/temp_dir.hpp"
#include "tasks.hpp"
#include "support/range.hpp"

using std::chrono::milliseconds;

namespace {


std::set<std::string> worker_ids(const fiber::Pool& pool) {
  std::set<std::string> ids;
  for (const auto& w : pool.workers()) ids.insert(w.id);
  return ids;
}

// Waits (bounded) until n workers are ready and idle.
bool ready_and_idle(const fiber::Pool& pool, std::size_t n) {
  for (int i = 0; i < 1200; ++i) {
    std::size_t idle = 0;
    for (const auto& w : pool.workers())
      idle += w.state == fiber::WorkerState::kReady && w.running == 0;
    if (idle == n) return true;
    std::this_thread::sleep_for(milliseconds(50));
  }
  return false;
}

std::size_t lines_in(const std::string& file) {
  std::ifstream in(file);
  std::size_t n = 0;
  for (std::string line; std::getline(in, line);) ++n;
  return n;
}

}  // namespace

TEST_CASE("a task that runs longer than task_timeout fails with TimeoutError; its worker is replaced") {
  fiber::PoolOptions options;
  options.processes = 2;
  options.task_timeout = milliseconds(400);
  fiber::Pool pool(options);
  REQUIRE(ready_and_idle(pool, 2));
  const std::set<std::string> before = worker_ids(pool);

  auto slow = pool.apply_async(sleep_ms, 60000);
  std::string what;
  try {
    slow.get();
  } catch (const fiber::TimeoutError& e) {
    what = e.what();
  }
  CHECK(what.starts_with("task sleep_ms@tasks.cpp:"));
  CHECK(what.find(" (item 0) ran longer than its pool's task_timeout of 0.4 s on worker w") !=
        std::string::npos);
  CHECK(what.ends_with(", which was killed"));
  // Not retried: the TimeoutError is the task's outcome.
  CHECK(slow.ready());
  CHECK_FALSE(slow.successful());

  // map raises it; the other chunks ran.
  CHECK_THROWS_AS(pool.map(sleep_ms, std::vector<int>{1, 60000, 2}, 1), fiber::TimeoutError);
  // imap yields what finished and raises it at the slow item's place.
  auto it = pool.imap(sleep_ms, std::vector<int>{3, 60000, 4});
  CHECK(it.next() == 3);
  CHECK_THROWS_AS(it.next(), fiber::TimeoutError);
  CHECK(it.next() == 4);

  // The killed workers were replaced, and the pool goes on.
  CHECK(pool.map(square, range(50)) == [] {
    std::vector<int> v;
    for (int i = 0; i < 50; ++i) v.push_back(i * i);
    return v;
  }());
  REQUIRE(ready_and_idle(pool, 2));
  const std::set<std::string> after = worker_ids(pool);
  for (const std::string& id : after) CHECK(before.count(id) == 0);
  pool.close();
  pool.join();
}

TEST_CASE("max_tasks_per_child: a worker runs at most that many tasks, and every result comes once") {
  fiber::PoolOptions options;
  options.processes = 2;
  options.max_tasks_per_child = 3;
  fiber::Pool pool(options);
  const auto results = pool.map(pid_and_square, range(20), 1);
  REQUIRE(results.size() == 20);
  std::map<long, int> tasks_by_pid;
  for (int i = 0; i < 20; ++i) {
    CHECK(results[static_cast<std::size_t>(i)].second == i * i);
    ++tasks_by_pid[results[static_cast<std::size_t>(i)].first];
  }
  for (const auto& [pid, n] : tasks_by_pid) CHECK(n <= 3);
  CHECK(tasks_by_pid.size() >= 7);  // 20 tasks, at most 3 each
  // The same through apply_async: new workers keep coming.
  std::set<long> pids;
  for (int i = 0; i < 7; ++i) pids.insert(pool.apply_async(worker_pid, i).get());
  CHECK(pids.size() >= 3);
  pool.close();
  pool.join();
}

TEST_CASE("a task queued behind a slow one finishes on an idle worker, and runs once") {
  fiber::testing::TempDir dir;
  fiber::Pool pool(2);  // prefetch 2: each worker holds up to two tasks
  REQUIRE(ready_and_idle(pool, 2));
  // Dealt one per worker per pass: the slow task and the third go to one
  // worker, the second and fourth to the other.
  auto slow = pool.apply_async(sleep_and_mark, dir.path() + "/slow", 3000);
  auto second = pool.apply_async(sleep_and_mark, dir.path() + "/second", 1);
  auto behind = pool.apply_async(sleep_and_mark, dir.path() + "/behind", 1);
  auto fourth = pool.apply_async(sleep_and_mark, dir.path() + "/fourth", 1);
  const long behind_pid = behind.get();
  CHECK_FALSE(slow.ready());  // it did not wait for the slow task
  const long slow_pid = slow.get();
  CHECK(behind_pid != slow_pid);
  CHECK(second.get() == behind_pid);
  CHECK(fourth.get() == behind_pid);
  pool.close();
  pool.join();
  // The slow task's worker skipped the task taken from it.
  for (const char* name : {"slow", "second", "behind", "fourth"})
    CHECK_MESSAGE(lines_in(dir.path() + "/" + name) == 1, name);
}

TEST_CASE("task_timeout and max_tasks_per_child refuse 0 and negative values with one clear error") {
  fiber::PoolOptions options;
  options.processes = 1;
  options.task_timeout = milliseconds(0);
  CHECK_THROWS_WITH_AS(fiber::Pool{options},
                       "PoolOptions.task_timeout must be positive (leave it unset for no "
                       "limit), not 0 ms",
                       fiber::ConfigError);
  options.task_timeout = milliseconds(-5);
  CHECK_THROWS_AS(fiber::Pool{options}, fiber::ConfigError);
  options.task_timeout.reset();
  options.max_tasks_per_child = 0;
  CHECK_THROWS_WITH_AS(fiber::Pool{options},
                       "PoolOptions.max_tasks_per_child must be 1 or more (leave it unset for "
                       "no limit), not 0",
                       fiber::ConfigError);
  options.max_tasks_per_child = -1;
  CHECK_THROWS_AS(fiber::Pool{options}, fiber::ConfigError);
}
