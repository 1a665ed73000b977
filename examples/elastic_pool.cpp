// An elastic pool: it starts with min_processes workers, starts more (up to
// max_processes) while tasks wait for one, and retires a worker idle for
// idle_timeout, so a program pays for workers only while it has work.
//   ./build/examples/elastic_pool
#include <fiber/fiber.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <numeric>
#include <thread>
#include <vector>

using namespace std::chrono_literals;

long slow_square(long x) {
  std::this_thread::sleep_for(300ms);
  return x * x;
}
FIBER_TASK(slow_square);

int main(int argc, char** argv) {
  fiber::init(argc, argv);
  fiber::Pool pool(fiber::PoolOptions{.min_processes = 1, .max_processes = 4, .idle_timeout = 1s});

  std::vector<long> xs(16);
  std::iota(xs.begin(), xs.end(), 0L);
  auto burst = pool.map_async(slow_square, xs, 1);  // a burst of work
  std::size_t most = 0;
  while (!burst.wait(100ms)) most = std::max(most, pool.workers().size());
  long sum = 0;
  for (long y : burst.get()) sum += y;
  std::printf("grew to %zu workers, sum %ld\n", most, sum);

  // Idle now: the pool retires workers down to min_processes.
  while (pool.workers().size() > 1) std::this_thread::sleep_for(100ms);
  std::printf("back to %zu worker\n", pool.workers().size());
}
