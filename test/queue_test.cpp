// fiber::Queue across real processes: producers and consumers in Processes,
// in Pool tasks and in the master; fair delivery; a consumer killed while
// it waits; big items; what a worker may leave in the master; and the
// errors of misuse.
#include <doctest/doctest.h>
#include <signal.h>

#include <fiber/fiber.hpp>

#include <chrono>
#include <set>
#include <thread>
#include <tuple>
#include <vector>

#include "support/connected_pid.hpp"

namespace {

void produce(fiber::Queue<int> q, int n) {
  for (int i = 0; i < n; ++i) q.put(i);
}
FIBER_TASK(produce);

void put_square(fiber::Queue<int> q, int x) { q.put(x * x); }
FIBER_TASK(put_square);

// Takes items until a negative one, reporting each as "name:item"; a gated
// consumer then waits on gate before it asks for the next: it is busy.
void consume(fiber::Queue<int> q, fiber::Queue<std::string> reports, fiber::Queue<int> gate,
             std::string name, bool gated) {
  for (;;) {
    const int x = q.get();
    if (x < 0) return;
    reports.put(name + ":" + std::to_string(x));
    if (gated) gate.get();
  }
}
FIBER_TASK(consume);

void get_one(fiber::Queue<int> q) { q.get(); }
FIBER_TASK(get_one);

void put_big(fiber::Queue<std::string> q, int mb) {
  std::string big(static_cast<std::size_t>(mb) << 20, '\0');
  for (std::size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>(i * 7);
  q.put(big);
}
FIBER_TASK(put_big);

// Makes queues until one is refused (at most n), then closes them, which
// frees them, and makes one more: how many it made, and the refusal.
std::string make_queues(int n) {
  std::vector<fiber::Queue<int>> made;
  try {
    for (int i = 0; i < n; ++i) {
      made.emplace_back();
      (void)made.back().empty();  // made in the master on first use
    }
  } catch (const fiber::Error& e) {
    made.pop_back();
    for (auto& q : made) q.close();
    fiber::Queue<int> another;
    another.put(1);
    return std::to_string(made.size()) + ": " + e.what();
  }
  return std::to_string(made.size());
}
FIBER_TASK(make_queues);

}  // namespace

TEST_CASE("items put in a Process are got in the master, each once") {
  fiber::Queue<int> q;
  fiber::Process producer(produce, q, 200);
  producer.start();
  std::multiset<int> got;
  for (int i = 0; i < 200; ++i) got.insert(q.get());
  producer.join();
  CHECK(producer.exitcode() == 0);
  std::multiset<int> expected;
  for (int i = 0; i < 200; ++i) expected.insert(i);
  CHECK(got == expected);
  CHECK(q.empty());
}

TEST_CASE("a queue handle passed through Pool tasks reaches the same queue") {
  fiber::SimpleQueue<int> q;
  fiber::Pool pool(2);
  std::vector<std::tuple<fiber::Queue<int>, int>> items;
  for (int i = 0; i < 20; ++i) items.emplace_back(q, i);
  pool.starmap(put_square, items);
  std::set<int> got;
  for (int i = 0; i < 20; ++i) got.insert(q.get());
  CHECK(got.size() == 20);
  CHECK(got.count(19 * 19) == 1);
  CHECK(q.empty());
}

TEST_CASE("a busy consumer does not receive while an idle one waits") {
  fiber::Queue<int> q, gate;
  fiber::Queue<std::string> reports;
  fiber::Process busy(consume, q, reports, gate, std::string("busy"), true);
  busy.start();
  q.put(0);
  CHECK(reports.get() == "busy:0");  // and now it waits on the gate
  fiber::Process idle(consume, q, reports, gate, std::string("idle"), false);
  idle.start();
  for (int i = 1; i <= 5; ++i) q.put(i);
  std::set<std::string> got;
  for (int i = 1; i <= 5; ++i) got.insert(reports.get());
  CHECK(got == std::set<std::string>{"idle:1", "idle:2", "idle:3", "idle:4", "idle:5"});
  q.put(-1);
  q.put(-1);
  gate.put(0);
  busy.join();
  idle.join();
  CHECK(busy.exitcode() == 0);
  CHECK(idle.exitcode() == 0);
}

TEST_CASE("a consumer killed while it waits loses nothing") {
  fiber::Queue<int> q;
  fiber::Process consumer(get_one, q);
  consumer.start();
  ::kill(static_cast<pid_t>(connected_pid(consumer)), SIGKILL);
  consumer.join();
  CHECK(consumer.exitcode() == -SIGKILL);
  for (int i = 0; i < 10; ++i) q.put(i);
  for (int i = 0; i < 10; ++i) CHECK(q.get(std::chrono::seconds(60)) == i);
}

TEST_CASE("items of several MB travel whole") {
  fiber::Queue<std::string> q;
  fiber::Process producer(put_big, q, 6);
  producer.start();
  const std::string big = q.get();
  producer.join();
  REQUIRE(big.size() == (6u << 20));
  bool same = true;
  for (std::size_t i = 0; i < big.size(); ++i) same = same && big[i] == static_cast<char>(i * 7);
  CHECK(same);
}

TEST_CASE("get with a timeout throws TimeoutError when nothing comes") {
  fiber::Queue<int> q;
  CHECK(q.empty());
  CHECK_THROWS_AS(q.get(std::chrono::milliseconds(50)), fiber::TimeoutError);
  q.put(7);
  CHECK_FALSE(q.empty());
  CHECK(q.get(std::chrono::milliseconds(50)) == 7);
}

TEST_CASE("a closed queue refuses puts and gives what it held, then Closed") {
  fiber::Queue<int> q;
  q.put(1);
  q.close();
  CHECK_THROWS_AS(q.put(2), fiber::Closed);
  CHECK(q.get() == 1);
  CHECK_THROWS_AS(q.get(), fiber::Closed);
  // A consumer waiting when the queue closes is told too.
  fiber::Queue<int> r;
  fiber::Process waiting(get_one, r);
  waiting.start();
  connected_pid(waiting);
  r.close();
  waiting.join();
  CHECK(waiting.exitcode() == 1);  // its get threw Closed
}

TEST_CASE("a handle from another run is refused by name") {
  const std::string bytes = fiber::detail::to_bytes(fiber::detail::QueueRef{"another-run", 1});
  auto q = fiber::detail::from_bytes<fiber::Queue<int>>(bytes);
  CHECK_THROWS_WITH_AS(q.put(1), doctest::Contains("belongs to run another-run"), fiber::Error);
}

TEST_CASE("a worker making queues without end is refused by name at its bound; closed ones free room") {
  fiber::Pool pool(1);
  const std::string said = pool.apply(make_queues, 2000);
  CHECK_MESSAGE(said.rfind("1024: ", 0) == 0, said);
  CHECK_MESSAGE(said.find("1024 open queues") != std::string::npos, said);
  // The master and the worker are unharmed.
  fiber::Queue<int> q;
  q.put(1);
  CHECK(q.get() == 1);
  CHECK(pool.apply(make_queues, 3) == "3");
}
