// expect: compiles
// Every timeout takes a number of seconds as multiprocessing's timeout= does
// (a double, or an integer: 5 is 5 s), and still takes a std::chrono duration.
#include <fiber/fiber.hpp>

#include <chrono>

int square(int x) { return x * x; }
FIBER_TASK(square);

int main() {
  using namespace std::chrono_literals;
  fiber::Queue<int> q;
  q.put(1, 0.1);
  q.put(1, 5);
  q.put(1, 100ms);
  int got = q.get(0.1) + q.get(5) + q.get(100ms);
  got += static_cast<int>(q.get_many(64, 0.1).size() + q.get_many(64, 5).size() +
                          q.get_many(64, 100ms).size());
  fiber::Queue<double> numbers;  // an item that is itself a number
  numbers.put(2.5, 1);
  fiber::Pool pool(1);
  auto r = pool.apply_async(square, 3);
  bool ready = r.wait(0.1) && r.wait(5) && r.wait(100ms);
  got += r.get(0.1) + r.get(5) + r.get(100ms);
  auto it = pool.imap(square, {4});
  got += it.next(0.1).value_or(0) + it.next(5).value_or(0) + it.next(100ms).value_or(0);
  fiber::Lock lock;
  fiber::Semaphore s;
  fiber::Event e;
  ready = ready && lock.acquire(0.1) && lock.acquire(5) && lock.acquire(100ms);
  ready = ready && s.acquire(0.1) && s.acquire(5) && s.acquire(100ms);
  ready = ready && e.wait(0.1) && e.wait(5) && e.wait(100ms);
  auto [a, b] = fiber::Pipe<int>(true);
  ready = ready && a.poll(0.1) && b.poll(5) && a.poll(100ms);
  fiber::Process p(square, 2);
  ready = ready && p.join(0.1) && p.join(5) && p.join(100ms) && p.join(1s);
  return ready && got > 0 ? 0 : 1;
}
