// fiber::Manager across real processes: a shared dict used from the master,
// a Process and Pool tasks; remote objects called in order; several
// managers; a killed manager; and the errors of misuse.
#include <doctest/doctest.h>
#include <signal.h>
#include <unistd.h>

#include <fiber/fiber.hpp>

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

namespace {

class Counter {
 public:
  explicit Counter(int start) : total_(start) {}
  int add(int n) { return total_ += n; }
  int value() const { return total_; }
  long pid() const { return static_cast<long>(::getpid()); }
  int slow(int ms) {
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    return ms;
  }
  int fail(int) { throw std::invalid_argument("no"); }
  int secret() { return 42; }  // not registered

 private:
  int total_;
};
FIBER_CLASS(Counter, &Counter::add, &Counter::value, &Counter::pid, &Counter::slow, &Counter::fail);

class Unregistered {
 public:
  int f() { return 1; }
};

void set_in_child(fiber::Dict<std::string, int> d) { d.set("child", d.get("parent") + 1); }
FIBER_TASK(set_in_child);

int add_remote(fiber::RemoteObject<Counter> c, int n) { return c.call(&Counter::add, n).get(); }
FIBER_TASK(add_remote);

void set_square(fiber::Dict<int, int> d, int x) { d.set(x, x * x); }
FIBER_TASK(set_square);

}  // namespace

TEST_CASE("a manager's dict is shared by the master, a Process and Pool tasks") {
  fiber::Manager m;
  auto d = m.dict<std::string, int>();
  d.set("parent", 41);
  fiber::Process p(set_in_child, d);
  p.start();
  p.join();
  CHECK(p.exitcode() == 0);
  CHECK(d.get("child") == 42);

  auto squares = m.dict<int, int>();
  fiber::Pool pool(2);
  std::vector<std::tuple<fiber::Dict<int, int>, int>> items;
  for (int i = 0; i < 10; ++i) items.emplace_back(squares, i);
  pool.starmap(set_square, items);
  CHECK(squares.size() == 10);
  auto keys = squares.keys();
  std::sort(keys.begin(), keys.end());
  CHECK(keys == std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  CHECK(squares.get(9) == 81);
}

TEST_CASE("dict operations: get, fallback, update, erase, contains, KeyError") {
  fiber::Manager m;
  auto d = m.dict<std::string, std::vector<double>>();
  CHECK(d.size() == 0);
  CHECK_THROWS_AS(d.get("absent"), fiber::KeyError);
  CHECK(d.get("absent", {1.5}) == std::vector<double>{1.5});
  d.update({{"a", {1}}, {"b", {2, 3}}});
  CHECK(d.contains("b"));
  CHECK(d.get("b") == std::vector<double>{2, 3});
  CHECK(d.erase("a"));
  CHECK_FALSE(d.erase("a"));
  CHECK_FALSE(d.contains("a"));
  CHECK(d.size() == 1);
}

TEST_CASE("calls on one remote object run in the order they were made") {
  fiber::Manager m;
  auto c = m.make<Counter>(10);
  std::vector<fiber::AsyncResult<int>> pending;
  for (int i = 0; i < 100; ++i) pending.push_back(c.call(&Counter::add, 1));
  for (int i = 0; i < 100; ++i) CHECK(pending[i].get() == 11 + i);
  CHECK(c.call(&Counter::value).get() == 110);
  CHECK_THROWS_WITH_AS(c.call(&Counter::fail, 1).get(), doctest::Contains("no"), fiber::RemoteError);
  CHECK(c.call(&Counter::value).get() == 110);  // the object survives its method's exception
}

TEST_CASE("several managers serve their objects, and handles work in Pool tasks") {
  std::vector<fiber::Manager> managers(3);
  std::vector<fiber::RemoteObject<Counter>> counters;
  for (int i = 0; i < 3; ++i) counters.push_back(managers[i].make<Counter>(i * 100));
  std::vector<long> pids;
  for (auto& c : counters) pids.push_back(c.call(&Counter::pid).get());
  std::sort(pids.begin(), pids.end());
  CHECK(std::unique(pids.begin(), pids.end()) == pids.end());  // three processes
  fiber::Pool pool(2);
  CHECK(pool.apply(add_remote, counters[2], 5) == 205);
  CHECK(counters[2].call(&Counter::value).get() == 205);
}

TEST_CASE("a killed manager fails its pending and later calls with WorkerLost") {
  fiber::Manager m;
  auto c = m.make<Counter>(0);
  const long pid = c.call(&Counter::pid).get();
  auto pending = c.call(&Counter::slow, 600000);
  ::kill(static_cast<pid_t>(pid), SIGKILL);
  CHECK_THROWS_AS(pending.get(), fiber::WorkerLost);
  CHECK_THROWS_AS(c.call(&Counter::value).get(), fiber::WorkerLost);
  CHECK_THROWS_AS((m.dict<int, int>()), fiber::WorkerLost);
}

TEST_CASE("misuse is a clear error") {
  fiber::Manager m;
  CHECK_THROWS_WITH_AS(m.make<Unregistered>(), doctest::Contains("FIBER_CLASS"), fiber::NotRegistered);
  auto c = m.make<Counter>(1);
  CHECK_THROWS_WITH_AS(c.call(&Counter::secret), doctest::Contains("not registered"),
                       fiber::NotRegistered);
  fiber::RemoteObject<Counter> foreign(fiber::detail::ObjectRef{"another-run", 1, 1});
  CHECK_THROWS_WITH_AS(foreign.call(&Counter::value), doctest::Contains("belongs to run another-run"),
                       fiber::Error);
  m.shutdown();
  CHECK_THROWS_AS(c.call(&Counter::value).get(), fiber::WorkerLost);
  CHECK_THROWS_AS((m.dict<int, int>()), fiber::Error);
}
