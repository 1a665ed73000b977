// fiber::Lock, fiber::Semaphore and fiber::Event across real processes: a
// counter kept right by a Lock from Processes and Pool tasks, try_lock and
// timeouts, a manager's object using a lock, an Event waking other processes, a Semaphore bounding how many
// run at once, a holder killed while it holds, and the errors of misuse.
#include <doctest/doctest.h>
#include <signal.h>

#include <fiber/fiber.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <mutex>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "support/connected_pid.hpp"

using namespace std::chrono_literals;

namespace {

// A read-modify-write of d["n"], times times, each under lock.
void add_locked(fiber::Lock lock, fiber::Dict<std::string, int> d, int times) {
  for (int i = 0; i < times; ++i) {
    std::lock_guard<fiber::Lock> guard(lock);
    const int n = d.get("n");
    std::this_thread::yield();
    d.set("n", n + 1);
  }
}
FIBER_TASK(add_locked);

// Takes the lock, says so, and gives it back once go is set.
void hold_until(fiber::Lock lock, fiber::Queue<int> held, fiber::Event go) {
  lock.acquire();
  held.put(1);
  go.wait();
  lock.release();
}
FIBER_TASK(hold_until);

// What releasing a lock it does not hold says.
std::string release_unheld(fiber::Lock lock) {
  try {
    lock.release();
  } catch (const fiber::Error& e) {
    return e.what();
  }
  return "released";
}
FIBER_TASK(release_unheld);

void wait_then_report(fiber::Event e, fiber::Queue<int> woke, int who) {
  e.wait();
  woke.put(who);
}
FIBER_TASK(wait_then_report);

void set_event(fiber::Event e) { e.set(); }
FIBER_TASK(set_event);

bool wait_briefly(fiber::Event e) { return e.wait(50ms); }
FIBER_TASK(wait_briefly);

// Records +1 once it holds a permit and -1 before it gives it back, so the
// order of the records in the master shows how many held one at once.
int bounded_work(fiber::Semaphore s, fiber::Queue<int> records) {
  s.acquire();
  records.put(1);
  std::this_thread::sleep_for(20ms);
  records.put(-1);
  s.release();
  return 0;
}
FIBER_TASK(bounded_work);

// Takes the lock and a permit, says so, and waits to be killed.
void hold_forever(fiber::Lock lock, fiber::Semaphore s, fiber::Queue<int> held) {
  lock.acquire();
  s.acquire();
  held.put(1);
  for (;;) std::this_thread::sleep_for(1s);
}
FIBER_TASK(hold_forever);

void take_lock(fiber::Lock lock, fiber::Queue<int> got) {
  lock.acquire();
  got.put(1);
  lock.release();
}
FIBER_TASK(take_lock);

// A manager's object that tries the lock it is given.
class LockUser {
 public:
  bool try_take(fiber::Lock lock) {
    if (!lock.try_lock()) return false;
    lock.unlock();
    return true;
  }
};
FIBER_CLASS(LockUser, &LockUser::try_take);

}  // namespace

TEST_CASE("a Lock keeps a read-modify-write on a Manager dict right across Processes and Pool tasks") {
  fiber::Manager m;
  auto d = m.dict<std::string, int>();
  d.set("n", 0);
  fiber::Lock lock;
  std::vector<fiber::Process> processes;
  for (int i = 0; i < 3; ++i) processes.emplace_back(add_locked, lock, d, 15);
  for (auto& p : processes) p.start();
  fiber::Pool pool(2);
  std::vector<std::tuple<fiber::Lock, fiber::Dict<std::string, int>, int>> tasks(4, {lock, d, 15});
  pool.starmap(add_locked, tasks);
  add_locked(lock, d, 15);  // the master too
  for (auto& p : processes) {
    p.join();
    CHECK(p.exitcode() == 0);
  }
  CHECK(d.get("n") == (3 + 4 + 1) * 15);
}

TEST_CASE("try_lock and acquire with a timeout say false while another process holds the lock") {
  fiber::Lock lock;
  fiber::Queue<int> held;
  fiber::Event go;
  fiber::Process holder(hold_until, lock, held, go);
  holder.start();
  held.get();
  CHECK_FALSE(lock.try_lock());
  CHECK_FALSE(lock.acquire(50ms));
  CHECK_FALSE(lock.acquire(0.05));  // seconds, as multiprocessing's timeout=0.05
  go.set();
  holder.join();
  CHECK(holder.exitcode() == 0);
  CHECK(lock.acquire(60s));
  CHECK_FALSE(lock.try_lock());  // not recursive
  lock.unlock();
  CHECK(lock.acquire(60));  // an integer is seconds
  lock.unlock();
  CHECK(lock.try_lock());
  lock.release();
}

TEST_CASE("a manager's object sees the lock the master holds") {
  fiber::Manager m;
  auto user = m.make<LockUser>();
  fiber::Lock lock;
  lock.lock();
  CHECK_FALSE(user.call(&LockUser::try_take, lock).get());
  lock.unlock();
  CHECK(user.call(&LockUser::try_take, lock).get());
}

TEST_CASE("an Event set by one Process wakes the processes waiting on it") {
  fiber::Event e;
  fiber::Queue<int> woke;
  CHECK_FALSE(e.is_set());
  CHECK_FALSE(e.wait(50ms));
  CHECK_FALSE(e.wait(0.05));
  CHECK_FALSE(e.wait(0));
  std::vector<fiber::Process> waiters;
  for (int i = 0; i < 3; ++i) waiters.emplace_back(wait_then_report, e, woke, i);
  for (auto& p : waiters) p.start();
  fiber::Pool pool(1);
  CHECK_FALSE(pool.apply(wait_briefly, e));  // unset: a worker's wait times out too
  fiber::Process setter(set_event, e);
  setter.start();
  std::vector<int> who;
  for (int i = 0; i < 3; ++i) who.push_back(woke.get(60s));
  std::sort(who.begin(), who.end());
  CHECK(who == std::vector<int>{0, 1, 2});
  for (auto& p : waiters) p.join();
  setter.join();
  CHECK(e.is_set());
  CHECK(e.wait(50ms));
  CHECK(e.wait(0.05));
  CHECK(pool.apply(wait_briefly, e));
  e.clear();
  CHECK_FALSE(e.is_set());
}

TEST_CASE("timeouts in seconds: a Semaphore's acquire, and negative or NaN ones refused by name") {
  fiber::Semaphore s(1);
  CHECK(s.acquire(0.05));
  CHECK_FALSE(s.acquire(0.05));
  CHECK_FALSE(s.acquire(0));
  s.release();
  CHECK(s.acquire(60));
  s.release();
  CHECK_THROWS_WITH_AS(s.acquire(-1), doctest::Contains("Semaphore::acquire: timeout must be"),
                       fiber::Error);
  fiber::Lock lock;
  CHECK_THROWS_WITH_AS(lock.acquire(-0.05), doctest::Contains("Lock::acquire: timeout must be"),
                       fiber::Error);
  fiber::Event e;
  CHECK_THROWS_WITH_AS(e.wait(std::nan("")), doctest::Contains("Event::wait: timeout must be"),
                       fiber::Error);
  CHECK_THROWS_WITH_AS(e.wait(1e12), doctest::Contains("from 0 to 1e9, not 1e+12"), fiber::Error);
}

TEST_CASE("a Semaphore of two lets at most two Pool tasks hold it at once") {
  fiber::Semaphore s(2);
  fiber::Queue<int> records;
  fiber::Pool pool(4);
  std::vector<std::tuple<fiber::Semaphore, fiber::Queue<int>>> tasks(8, {s, records});
  pool.starmap(bounded_work, tasks);
  // Each task ran once, work stealing or not: two records each, and no
  // permit held once the map returned.
  int holding = 0, most = 0;
  for (int read = 0; read < 16; ++read) {
    holding += records.get(60s);
    most = std::max(most, holding);
  }
  CHECK(holding == 0);
  CHECK(records.empty());  // a task's puts are in before its result
  CHECK(most >= 1);
  CHECK(most <= 2);
  CHECK(s.acquire(60s));
  CHECK(s.acquire(60s));
  CHECK_FALSE(s.try_acquire());
  s.release();
  s.release();
}

TEST_CASE("a holder killed with SIGKILL gives back its Lock and its permit") {
  fiber::Lock lock;
  fiber::Semaphore s(1);
  fiber::Queue<int> held, got;
  fiber::Process holder(hold_forever, lock, s, held);
  holder.start();
  held.get();
  fiber::Process waiter(take_lock, lock, got);  // waits behind the holder
  waiter.start();
  CHECK_FALSE(s.try_acquire());
  ::kill(static_cast<pid_t>(connected_pid(holder)), SIGKILL);
  holder.join();
  CHECK(holder.exitcode() == -SIGKILL);
  CHECK(got.get(60s) == 1);  // the waiter had the lock
  waiter.join();
  CHECK(waiter.exitcode() == 0);
  CHECK(s.acquire(60s));
  CHECK(lock.try_lock());
  lock.unlock();
  s.release();
}

TEST_CASE("releasing what is not held is one clear Error") {
  fiber::Lock lock;
  CHECK_THROWS_WITH_AS(lock.release(), doctest::Contains("Lock::release: this process does not hold the lock"),
                       fiber::Error);
  lock.acquire();
  fiber::Pool pool(1);
  // Another process may not release the master's lock either.
  CHECK(pool.apply(release_unheld, lock) == "Lock::release: this process does not hold the lock");
  lock.release();
  fiber::BoundedSemaphore b(2);
  b.acquire();
  b.release();
  CHECK_THROWS_WITH_AS(b.release(), doctest::Contains("released more often than acquired"), fiber::Error);
  fiber::Semaphore unbounded(0);
  unbounded.release();  // as multiprocessing's: anyone may add a permit
  CHECK(unbounded.try_acquire());
}

TEST_CASE("a handle of another run, or of no object, is refused by name") {
  const std::string other = fiber::detail::to_bytes(fiber::detail::RunObjectRef{"another-run", 1});
  auto lock = fiber::detail::from_bytes<fiber::Lock>(other);
  CHECK_THROWS_WITH_AS(lock.try_lock(), doctest::Contains("belongs to run another-run"), fiber::Error);
  auto e = fiber::detail::from_bytes<fiber::Event>(other);
  CHECK_THROWS_WITH_AS(e.set(), doctest::Contains("belongs to run another-run"), fiber::Error);
  // This run's id, but an object it never made.
  fiber::Lock real;
  auto ref = fiber::detail::from_bytes<fiber::detail::RunObjectRef>(fiber::detail::to_bytes(real));
  ref.id = 1u << 30;
  auto missing = fiber::detail::from_bytes<fiber::Semaphore>(fiber::detail::to_bytes(ref));
  CHECK_THROWS_WITH_AS(missing.acquire(), doctest::Contains("no lock or semaphore"), fiber::Error);
}
