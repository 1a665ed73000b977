// Pool methods with multiprocessing semantics, on real worker processes.
#include <doctest/doctest.h>

#include <fiber/fiber.hpp>

#include <algorithm>
#include <numeric>
#include <csignal>
#include <set>

#include "tasks.hpp"
#include "support/range.hpp"

namespace {
std::vector<int> squares(int n) {
  std::vector<int> v;
  for (int i = 0; i < n; ++i) v.push_back(i * i);
  return v;
}
}  // namespace

TEST_CASE("map returns results in item order, for any chunksize") {
  fiber::Pool pool(3);
  CHECK(pool.map(square, range(100)) == squares(100));
  CHECK(pool.map(square, range(100), 1) == squares(100));
  CHECK(pool.map(square, range(100), 7) == squares(100));
  CHECK(pool.map(square, range(100), 1000) == squares(100));
  CHECK(pool.map(square, std::vector<int>{}).empty());
}

TEST_CASE("map and starmap run chunks as units: every result once, in item order, any type") {
  fiber::Pool pool(2);
  // Default chunking (8 chunks of 1250), uneven last chunks, chunks of one.
  CHECK(pool.map(square, range(10000)) == squares(10000));
  CHECK(pool.map(square, range(10), 3) == squares(10));
  std::vector<std::string> names, greetings;
  for (int i = 0; i < 50; ++i) {
    names.push_back(std::string(static_cast<std::size_t>(i), 'n'));
    greetings.push_back("hello " + names.back());
  }
  CHECK(pool.map(greet, names) == greetings);
  CHECK(pool.map(greet, names, 1) == greetings);
  std::vector<std::tuple<int, int>> pairs;
  std::vector<int> sums;
  for (int i = 0; i < 1001; ++i) {
    pairs.emplace_back(i, -2 * i);
    sums.push_back(-i);
  }
  CHECK(pool.starmap(add, pairs) == sums);
  CHECK(pool.starmap(add, pairs, 10) == sums);
  // A call that throws ends its chunk; get() throws the first error in item
  // order, whichever chunk finished first.
  std::vector<int> items(40, 1);
  items[5] = -5;
  items[33] = -33;
  for (std::size_t chunksize : {1, 4, 40})
    CHECK_THROWS_WITH_AS(pool.map(fail_on_negative, items, chunksize),
                         "std::invalid_argument: negative input -5", fiber::RemoteError);
  CHECK(pool.map(square, range(5)) == squares(5));  // the workers go on
}

TEST_CASE("PoolOptions.chunksize is the default chunksize of map") {
  fiber::PoolOptions options;
  options.processes = 2;
  options.chunksize = 5;
  fiber::Pool pool(options);
  CHECK(pool.map(square, range(23)) == squares(23));
}

TEST_CASE("apply and apply_async run one call") {
  fiber::Pool pool(2);
  CHECK(pool.apply(add, 2, 40) == 42);
  CHECK(pool.apply(greet, std::string("fiber")) == "hello fiber");
  auto r = pool.apply_async(add, 1, 2);
  r.wait();
  CHECK(r.ready());
  CHECK(r.successful());
  CHECK(r.get() == 3);
  CHECK(r.get(std::chrono::seconds(1)) == 3);  // get() may be called again
}

TEST_CASE("a task returning void can be waited on") {
  fiber::Pool pool(1);
  auto r = pool.apply_async(do_nothing);
  r.get();
  CHECK(r.successful());
  pool.apply(do_nothing);
}

TEST_CASE("get(timeout) throws TimeoutError while the task still runs") {
  fiber::Pool pool(1);
  auto r = pool.apply_async(sleep_ms, 1500);
  CHECK_THROWS_AS(r.get(std::chrono::milliseconds(10)), fiber::TimeoutError);
  CHECK_FALSE(r.wait(std::chrono::milliseconds(1)));
  CHECK(r.get() == 1500);
}

TEST_CASE("get, wait and next take a number of seconds as they take a duration") {
  fiber::Pool pool(1);
  auto r = pool.apply_async(sleep_ms, 1500);
  auto later = pool.imap(sleep_ms, std::vector<int>{100});  // queued behind r
  CHECK_THROWS_AS(r.get(0.01), fiber::TimeoutError);
  CHECK_FALSE(r.wait(0.001));
  CHECK_FALSE(r.wait(0));
  CHECK_THROWS_AS(later.next(0.01), fiber::TimeoutError);
  CHECK_THROWS_WITH_AS(r.get(-0.5), doctest::Contains("AsyncResult::get: timeout must be"),
                       fiber::Error);
  CHECK_THROWS_WITH_AS(later.next(-1), doctest::Contains("IMapResult::next: timeout must be"),
                       fiber::Error);
  CHECK(r.get(60) == 1500);
  CHECK(r.wait(0));
  CHECK(later.next(60) == 100);
  CHECK_FALSE(later.next(60).has_value());
}

TEST_CASE("imap yields results lazily in item order") {
  fiber::Pool pool(3);
  std::vector<int> seen;
  for (int v : pool.imap(slow_square, range(50))) seen.push_back(v);
  CHECK(seen == squares(50));
  auto it = pool.imap(square, range(3), 2);
  CHECK(it.next() == 0);
  CHECK(it.next(std::chrono::seconds(60)) == 1);
  CHECK(it.next() == 4);
  CHECK_FALSE(it.next().has_value());
}

TEST_CASE("imap_unordered yields every result exactly once") {
  fiber::Pool pool(3);
  std::multiset<int> seen;
  for (int v : pool.imap_unordered(slow_square, range(200))) seen.insert(v);
  const auto expected = squares(200);
  CHECK(seen == std::multiset<int>(expected.begin(), expected.end()));
  std::multiset<int> chunked;
  for (int v : pool.imap_unordered(square, range(200), 16)) chunked.insert(v);
  CHECK(chunked == seen);
}

TEST_CASE("starmap unpacks tuples into arguments") {
  fiber::Pool pool(2);
  std::vector<std::tuple<int, int>> pairs;
  for (int i = 0; i < 30; ++i) pairs.emplace_back(i, 100 * i);
  const auto sums = pool.starmap(add, pairs);
  REQUIRE(sums.size() == 30);
  for (int i = 0; i < 30; ++i) CHECK(sums[i] == 101 * i);
  CHECK(pool.starmap_async(add, pairs, 4).get() == sums);
}

TEST_CASE("map_async of a void task waits for every call") {
  fiber::Pool pool(2);
  std::vector<int> items(10, 0);
  auto r = pool.map_async(sleep_ms, items);
  CHECK(r.get().size() == 10);
}

TEST_CASE("arguments and results: containers, optionals and user structs") {
  fiber::Pool pool(2);
  Particle p{"electron", {1.0, 2.0, 3.0}, -1};
  const Particle moved = pool.apply(move_particle, p, 0.5);
  CHECK(moved == Particle{"electron", {1.5, 2.5, 3.5}, -1});
  const Particle neutral{"neutron", {}, std::nullopt};
  CHECK(pool.apply(move_particle, neutral, 1.0) == neutral);
  const auto counts =
      pool.apply(count_words, std::vector<std::string>{"a", "b", "a", "c", "a"});
  CHECK(counts == std::map<std::string, int>{{"a", 3}, {"b", 1}, {"c", 1}});
  const auto summary = pool.apply(summarize, std::make_pair(std::string("run"), std::array<double, 3>{1, 2, 3.5}),
                                  std::make_tuple(4, true));
  CHECK(summary == std::unordered_map<std::string, double>{{"run", 6.5}, {"scale", -4.0}});
}

TEST_CASE("payloads of several megabytes travel both ways intact") {
  fiber::Pool pool(2);
  std::string big(8 * 1024 * 1024, '\0');
  for (std::size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>(i * 131 % 251);
  CHECK(pool.apply(echo_bytes, big) == big);
  const std::vector<std::string> many(4, big);
  const auto sizes = pool.map(payload_size, many, 1);
  CHECK(sizes == std::vector<std::size_t>(4, big.size()));
}

TEST_CASE("a payload of hundreds of megabytes travels both ways in pieces, intact") {
  fiber::Pool pool(1);
  std::string huge(std::size_t{200} << 20, '\0');
  for (std::size_t i = 0; i < huge.size(); i += 4093) huge[i] = static_cast<char>(i % 251);
  CHECK(pool.apply(echo_bytes, huge) == huge);
}

TEST_CASE("every pool of a program is served through the run's one endpoint") {
  fiber::Pool a(1), b(1);
  const std::string endpoint = a.apply(getenv_task, std::string("FIBER_MASTER_ENDPOINT"));
  CHECK(endpoint.rfind("tcp://127.0.0.1:", 0) == 0);
  CHECK(b.apply(getenv_task, std::string("FIBER_MASTER_ENDPOINT")) == endpoint);
  CHECK(a.apply(getenv_task, std::string("FIBER_RUN_ID")) ==
        b.apply(getenv_task, std::string("FIBER_RUN_ID")));
  // Worker ids are unique within the run, not per pool.
  CHECK(a.workers().at(0).id != b.workers().at(0).id);
}

TEST_CASE("a task's exception reaches the caller as RemoteError and the worker survives") {
  fiber::Pool pool(1);
  const long pid = pool.apply(worker_pid, 0);
  try {
    pool.apply(fail_on_negative, -7);
    FAIL("expected RemoteError");
  } catch (const fiber::RemoteError& e) {
    CHECK(e.type() == "std::invalid_argument");
    CHECK(e.message() == "negative input -7");
    CHECK(std::string(e.what()) == "std::invalid_argument: negative input -7");
  }
  CHECK_THROWS_AS(pool.apply(throw_non_std, 1), fiber::RemoteError);
  CHECK(pool.apply(worker_pid, 0) == pid);  // same worker, not replaced
  // map raises the first failing item's error
  CHECK_THROWS_WITH_AS(pool.map(fail_on_negative, std::vector<int>{1, -2, 3, -4}),
                       "std::invalid_argument: negative input -2", fiber::RemoteError);
  // imap raises at the failing item, after yielding those before it
  auto it = pool.imap(fail_on_negative, std::vector<int>{5, -1, 6});
  CHECK(it.next() == 5);
  CHECK_THROWS_AS(it.next(), fiber::RemoteError);
  CHECK(it.next() == 6);
}

int unregistered_task(int x) { return x; }

TEST_CASE("an unregistered function is a clear error naming it") {
  fiber::Pool pool(1);
  CHECK_THROWS_WITH_AS(pool.apply(unregistered_task, 1),
                       doctest::Contains("unregistered_task is not registered"),
                       fiber::NotRegistered);
  CHECK_THROWS_WITH_AS(pool.map(unregistered_task, range(3)),
                       doctest::Contains("FIBER_TASK(unregistered_task)"), fiber::NotRegistered);
  CHECK(pool.apply(square, 3) == 9);  // the pool is unharmed
}

TEST_CASE("the initializer runs once in every worker before its tasks") {
  fiber::PoolOptions options;
  options.processes = 3;
  options.initializer = fiber::call(init_seed, 1234);
  fiber::Pool pool(options);
  for (int v : pool.map(seeded_value, range(30), 1)) CHECK(v == 1234);
}

TEST_CASE("a failing initializer fails the calls instead of looping") {
  fiber::PoolOptions options;
  options.processes = 2;
  options.initializer = fiber::call(init_throws, 0);
  fiber::Pool pool(options);
  CHECK_THROWS_WITH_AS(pool.apply(square, 2), doctest::Contains("no simulator license"),
                       fiber::RemoteError);
  CHECK_THROWS_AS(pool.apply(square, 3), fiber::RemoteError);
}

TEST_CASE("close and join finish queued work; later submissions are refused") {
  fiber::Pool pool(2);
  auto pending = pool.map_async(slow_square, range(40));
  pool.close();
  CHECK_THROWS_AS(pool.apply(square, 1), fiber::PoolClosed);
  pool.join();
  CHECK(pending.get() == squares(40));
  CHECK(pool.workers().empty());
}

TEST_CASE("terminate stops at once and fails unfinished calls") {
  fiber::Pool pool(2);
  auto pending = pool.map_async(sleep_ms, std::vector<int>(20, 500), 1);
  pool.terminate();
  pool.join();
  CHECK_THROWS_AS(pending.get(), fiber::PoolClosed);
  CHECK_THROWS_AS(pool.apply(square, 1), fiber::PoolClosed);
}

TEST_CASE("join without close or terminate is an error, not a hang") {
  fiber::Pool pool(1);
  CHECK_THROWS_AS(pool.join(), fiber::Error);
}

TEST_CASE("bad pool options are refused with the option named") {
  fiber::PoolOptions options;
  options.processes = -1;
  CHECK_THROWS_WITH_AS(fiber::Pool{options}, doctest::Contains("processes"), fiber::ConfigError);
  options.processes = 1;
  options.backend = "mainframe";
  CHECK_THROWS_WITH_AS(fiber::Pool{options}, doctest::Contains("PoolOptions.backend='mainframe' is not a known backend (known: local, docker, podman, container, kubernetes, slurm)"),
                       fiber::ConfigError);
}

TEST_CASE("the destructor cleans up a pool with work still queued") {
  std::set<long> pids;
  {
    fiber::Pool pool(2);
    for (long pid : pool.map(worker_pid, range(40), 1)) pids.insert(pid);
    pool.map_async(sleep_ms, std::vector<int>(10, 300), 1);
  }
  REQUIRE_FALSE(pids.empty());
  // Local workers are our children: the destructor killed and reaped them.
  for (long pid : pids) CHECK(::kill(static_cast<pid_t>(pid), 0) != 0);
}
