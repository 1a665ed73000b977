// Lock, Semaphore and Event across processes: Pool tasks wait on an Event
// until the main program sets it, count themselves in a Manager's dict under
// a Lock (a read-modify-write that loses updates without it), and at most
// two at a time hold a Semaphore, as for a scarce licence or a rate limit.
// All three are handles, passed to tasks like a Queue; a task killed while
// it holds the Lock or a permit gives it back.
//   ./build/examples/locks
#include <fiber/fiber.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

using Counts = fiber::Dict<std::string, int>;

// Adds n to counts[key] under lock; returns the new value.
int add(fiber::Lock& lock, Counts& counts, const std::string& key, int n) {
  std::lock_guard<fiber::Lock> guard(lock);
  const int now = counts.get(key, 0) + n;
  counts.set(key, now);
  return now;
}

int work(fiber::Event go, fiber::Lock lock, fiber::Semaphore licences, Counts counts) {
  go.wait();
  add(lock, counts, "started", 1);
  licences.acquire();
  const int holding = add(lock, counts, "holding", 1);
  {
    std::lock_guard<fiber::Lock> guard(lock);
    counts.set("peak", std::max(counts.get("peak", 0), holding));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // the scarce work
  add(lock, counts, "holding", -1);
  licences.release();
  return holding;
}
FIBER_TASK(work);

int main(int argc, char** argv) {
  fiber::init(argc, argv);
  fiber::Manager manager;
  Counts counts = manager.dict<std::string, int>();
  fiber::Event go;
  fiber::Lock lock;
  fiber::Semaphore licences(2);

  fiber::Pool pool(4);
  std::vector<fiber::AsyncResult<int>> results;
  for (int i = 0; i < 8; ++i) results.push_back(pool.apply_async(work, go, lock, licences, counts));
  std::printf("is the event set? %s\n", go.is_set() ? "yes" : "no");
  go.set();  // every task waiting on it goes
  for (auto& r : results) r.get();
  std::printf("tasks started: %d\n", counts.get("started"));
  std::printf("most holding a licence at once: %d of 2\n", counts.get("peak"));
}
