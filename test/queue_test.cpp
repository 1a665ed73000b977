// fiber::Queue across real processes: producers and consumers in Processes,
// in Pool tasks and in the master; fair delivery; a consumer killed while
// it waits; big items; what a worker may leave in the master; and the
// errors of misuse.
#include <doctest/doctest.h>
#include <signal.h>
#include <unistd.h>

#include <fiber/fiber.hpp>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <future>
#include <memory>
#include <utility>
#include <set>
#include <thread>
#include <tuple>
#include <vector>

#include "client/run_client.hpp"
#include "master/run.hpp"
#include "wire/item_directory.hpp"
#include "wire/item_files.hpp"
#include "wire/request.hpp"
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

void get_big(fiber::Queue<std::string> q) { q.get(); }
FIBER_TASK(get_big);

// Item i: small (i bytes), or every fourth one large (100 KB and i bytes),
// each byte i.
std::string mixed_item(int i) {
  const std::size_t size = static_cast<std::size_t>(i) + (i % 4 == 3 ? 100 << 10 : 0);
  return std::string(size, static_cast<char>(i));
}
void put_mixed(fiber::Queue<std::string> q, int n) {
  for (int i = 0; i < n; ++i) q.put(mixed_item(i));
}
FIBER_TASK(put_mixed);

// Gets n items and says how many were not mixed_item(i), in order.
int get_mixed(fiber::Queue<std::string> q, int n) {
  int wrong = 0;
  for (int i = 0; i < n; ++i) wrong += q.get() == mixed_item(i) ? 0 : 1;
  return wrong;
}
FIBER_TASK(get_mixed);

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

// Puts n pairs (who, i) in order, flushes, and dies without exiting.
void put_then_die(fiber::Queue<std::pair<int, int>> q, int who, int n) {
  for (int i = 0; i < n; ++i) q.put({who, i});
  q.flush();
  ::raise(SIGKILL);
}
FIBER_TASK(put_then_die);

// Puts n items of 100 KB or more, each of its index's bytes, flushes,
// and dies without exiting.
void put_big_then_die(fiber::Queue<std::string> q, int n) {
  for (int i = 0; i < n; ++i) q.put(std::string((100 << 10) + i, static_cast<char>(i)));
  q.flush();
  ::raise(SIGKILL);
}
FIBER_TASK(put_big_then_die);

// Puts n pairs (who, i) and returns: its exit must wait for them.
void put_pairs(fiber::Queue<std::pair<int, int>> q, int who, int n) {
  for (int i = 0; i < n; ++i) q.put({who, i});
}
FIBER_TASK(put_pairs);

void put_range_many(fiber::Queue<int> q, int n) {
  std::vector<int> items(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) items[static_cast<std::size_t>(i)] = i;
  q.put_many(items);
}
FIBER_TASK(put_range_many);

// Puts into a queue closed before: the put returns, the task's result
// carries its error.
void put_into_closed(fiber::Queue<int> q) { q.put(1); }
FIBER_TASK(put_into_closed);

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

TEST_CASE("small items and large ones from one producer arrive in the order put, in the master "
          "and in another Process") {
  const int n = 200;
  fiber::Queue<std::string> q;
  fiber::Process producer(put_mixed, q, n);
  producer.start();
  for (int i = 0; i < n; ++i) REQUIRE(q.get(std::chrono::seconds(60)) == mixed_item(i));
  producer.join();
  CHECK(producer.exitcode() == 0);
  // The large items held in the master in their files reach a consumer
  // Process whole, too.
  fiber::Pool pool(1);
  auto wrong = pool.apply_async(get_mixed, q, n);
  fiber::Process again(put_mixed, q, n);
  again.start();
  CHECK(wrong.get() == 0);
  again.join();
  CHECK(q.empty());
}

TEST_CASE("get with a timeout throws TimeoutError when nothing comes") {
  fiber::Queue<int> q;
  CHECK(q.empty());
  CHECK_THROWS_AS(q.get(std::chrono::milliseconds(50)), fiber::TimeoutError);
  q.put(7);
  CHECK_FALSE(q.empty());
  CHECK(q.get(std::chrono::milliseconds(50)) == 7);
}

TEST_CASE("a timeout in seconds, as multiprocessing takes it: a double or an integer") {
  fiber::Queue<int> q;
  CHECK_THROWS_AS(q.get(0.05), fiber::TimeoutError);
  CHECK_THROWS_AS(q.get(0), fiber::TimeoutError);  // an integer is seconds; 0 does not wait
  CHECK_THROWS_AS(q.get_many(64, 0.05), fiber::TimeoutError);
  q.put(7, 0.05);
  CHECK(q.get(0.05) == 7);
  q.put(8);
  CHECK(q.get(60) == 8);
  q.put(9);
  CHECK(q.get_many(64, 60) == std::vector<int>{9});
  q.put(10);
  CHECK(q.get_many(64, 0.05) == std::vector<int>{10});
  // Negative or NaN: one Error naming the call and the timeout, nothing taken or put.
  CHECK_THROWS_WITH_AS(q.get(-1),
                       "Queue::get: timeout must be a number of seconds from 0 to 1e9, not -1",
                       fiber::Error);
  CHECK_THROWS_WITH_AS(q.get_many(4, std::nan("")), doctest::Contains("Queue::get_many: timeout"),
                       fiber::Error);
  CHECK_THROWS_WITH_AS(q.put(11, -0.5), doctest::Contains("Queue::put: timeout"), fiber::Error);
  CHECK(q.empty());
}

TEST_CASE("a closed queue refuses puts and gives what it held, then Closed") {
  fiber::Queue<int> q;
  q.put(1);
  q.close();
  q.put(2);  // pipelined: its error comes back later
  CHECK_THROWS_AS(q.flush(), fiber::Closed);
  q.put(3);
  CHECK_THROWS_WITH_AS(q.qsize(), doctest::Contains("an earlier put"), fiber::Closed);
  CHECK(q.qsize() == 1);  // raised once
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

TEST_CASE("a producer killed right after flush() has put every item, in order") {
  fiber::Queue<std::pair<int, int>> q;
  const int n = 2000;
  fiber::Process producer(put_then_die, q, 1, n);
  producer.start();
  producer.join();
  CHECK(producer.exitcode() == -SIGKILL);
  CHECK(q.qsize() == static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) REQUIRE(q.get(std::chrono::seconds(60)) == std::pair<int, int>{1, i});
  CHECK(q.empty());
}

TEST_CASE("large items from a producer killed right after flush() are all in, in order, and "
          "their files on this machine are gone but a few kept for reuse") {
  fiber::Queue<std::string> q;
  const int n = 40;  // 4 MB: more than one window of unanswered puts
  fiber::Process producer(put_big_then_die, q, n);
  producer.start();
  producer.join();
  CHECK(producer.exitcode() == -SIGKILL);
  for (int i = 0; i < n; ++i) {
    const std::string item = q.get(std::chrono::seconds(60));
    REQUIRE(item == std::string((100 << 10) + i, static_cast<char>(i)));
  }
  CHECK(q.empty());
  // The master read each item file and removed it, but for a few kept for reuse.
  const std::string dir = fiber::wire::ItemDirectoryOf(fiber::master::Run::Get().id());
  REQUIRE(::access(dir.c_str(), F_OK) == 0);
  int kept = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    CHECK(entry.path().filename().string().rfind("free-", 0) == 0);
    ++kept;
  }
  CHECK(kept >= 1);
  CHECK(kept <= fiber::wire::ItemFiles::kRecycled);
}

TEST_CASE("a consumer killed while it waits for a large item loses nothing") {
  fiber::Queue<std::string> q;
  fiber::Process consumer(get_big, q);
  consumer.start();
  ::kill(static_cast<pid_t>(connected_pid(consumer)), SIGKILL);
  consumer.join();
  fiber::Process producer(put_big, q, 2);
  producer.start();
  producer.join();
  CHECK(q.get(std::chrono::seconds(60)).size() == (2u << 20));
}

TEST_CASE("items from several producers arrive in order per producer, none lost") {
  fiber::Queue<std::pair<int, int>> q;
  const int n = 1500;
  std::vector<std::unique_ptr<fiber::Process>> producers;
  for (int who = 0; who < 3; ++who) {
    producers.push_back(std::make_unique<fiber::Process>(put_pairs, q, who, n));
    producers.back()->start();
  }
  // A Process's exit waits for its puts: all are in once all have joined.
  for (auto& p : producers) {
    p->join();
    CHECK(p->exitcode() == 0);
  }
  CHECK(q.qsize() == 3u * n);
  std::vector<int> next(3, 0);
  for (const auto& [who, i] : q.get_many(3 * n, std::chrono::seconds(60))) {
    REQUIRE(who >= 0);
    REQUIRE(who < 3);
    REQUIRE(i == next[static_cast<std::size_t>(who)]);
    ++next[static_cast<std::size_t>(who)];
  }
  CHECK(next == std::vector<int>{n, n, n});
}

TEST_CASE("puts held back to go together reach the master before any later request of the process") {
  fiber::Queue<std::string> q;
  const std::uint64_t id = fiber::detail::from_bytes<fiber::detail::RunObjectRef>(fiber::detail::to_bytes(q)).id;
  // The master's I/O thread waits: the puts' batches fill, two go
  // unanswered, and the last is held back.
  std::promise<void> open;
  REQUIRE(fiber::master::Run::Get().dispatcher().Post([opened = open.get_future().share()] { opened.wait(); }));
  const int n = 5000;  // about eight batches of 64 KiB: under the window, so no put waits
  const std::string item(100, 'x');
  for (int i = 0; i < n; ++i) q.put(item);
  // Another request of this process, answered with what the queue held
  // when the master took it.
  fiber::wire::Request size;
  size.op = fiber::wire::Op::kQueueSize;
  size.object = id;
  std::promise<std::uint64_t> held;
  fiber::client::RunClient::Get().Send(size, [&held](fiber::wire::Reply reply) {
    std::uint64_t items = 0;
    (void)fiber::wire::DecodeU64(reply.body, &items);
    held.set_value(items);
  });
  open.set_value();
  CHECK(held.get_future().get() == static_cast<std::uint64_t>(n));
  q.flush();
}

TEST_CASE("a put that met a closed queue fails the task that made it") {
  fiber::Queue<int> q;
  q.close();
  fiber::Pool pool(1);
  CHECK_THROWS_WITH(pool.apply(put_into_closed, q), doctest::Contains("the queue is closed"));
}

TEST_CASE("a bounded queue holds a producer back while full") {
  fiber::Queue<int> q(3);
  fiber::Process producer(produce, q, 10);
  producer.start();
  while (q.qsize() < 3) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  // Full: a put with a timeout gives up, its item not put.
  CHECK_THROWS_AS(q.put(-1, std::chrono::milliseconds(20)), fiber::TimeoutError);
  CHECK(q.qsize() == 3);
  for (int i = 0; i < 10; ++i) CHECK(q.get() == i);
  producer.join();
  CHECK(producer.exitcode() == 0);
  CHECK(q.qsize() == 0);
}

TEST_CASE("put_many from a Process; get_many takes 1..n in order, waiting only for the first") {
  fiber::Queue<int> q;
  fiber::Process producer(put_range_many, q, 300);
  producer.start();
  std::vector<int> got;
  while (got.size() < 300) {
    const std::vector<int> batch = q.get_many(64);
    REQUIRE(!batch.empty());
    REQUIRE(batch.size() <= 64);
    got.insert(got.end(), batch.begin(), batch.end());
  }
  producer.join();
  std::vector<int> expected(300);
  for (int i = 0; i < 300; ++i) expected[static_cast<std::size_t>(i)] = i;
  CHECK(got == expected);
  q.put(7);
  CHECK(q.get_many(5, std::chrono::seconds(60)) == std::vector<int>{7});
  CHECK_THROWS_AS(q.get_many(5, std::chrono::milliseconds(20)), fiber::TimeoutError);
  CHECK_THROWS_WITH_AS(q.get_many(0), doctest::Contains("at least one item"), fiber::Error);
}

TEST_CASE("a bounded put_many waits for room, taking the items in order") {
  fiber::Queue<int> q(4);
  fiber::Process producer(put_range_many, q, 50);
  producer.start();
  std::vector<int> got;
  while (got.size() < 50) {
    const std::vector<int> batch = q.get_many(64);
    CHECK(batch.size() <= 4);
    got.insert(got.end(), batch.begin(), batch.end());
  }
  producer.join();
  CHECK(producer.exitcode() == 0);
  for (int i = 0; i < 50; ++i) CHECK(got[static_cast<std::size_t>(i)] == i);
}
