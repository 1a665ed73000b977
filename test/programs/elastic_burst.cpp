// A master with an elastic pool (0 to 4 workers, idle ones retired after
// 2 s) given a burst: 24 tasks of 500 ms. It prints "grew to N", the most
// workers it held while the burst ran, and "sum S" (the squares of
// 0..23), then "back to 0" once every worker is retired. Tests use it to
// see a backend start and end workers (jobs, pods) as the load changes.
#include <fiber/fiber.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <numeric>
#include <thread>
#include <vector>

long square_slowly(long x) {
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  return x * x;
}
FIBER_TASK(square_slowly);

int main(int argc, char** argv) {
  fiber::init(argc, argv);
  fiber::PoolOptions options;
  options.min_processes = 0;
  options.max_processes = 4;
  options.idle_timeout = std::chrono::seconds(2);
  fiber::Pool pool(options);
  std::vector<long> xs(24);
  std::iota(xs.begin(), xs.end(), 0L);
  auto burst = pool.map_async(square_slowly, xs, 1);
  std::size_t most = 0;
  while (!burst.wait(std::chrono::milliseconds(100))) most = std::max(most, pool.workers().size());
  long sum = 0;
  for (long y : burst.get()) sum += y;
  std::printf("grew to %zu\nsum %ld\n", most, sum);
  std::fflush(stdout);
  while (!pool.workers().empty()) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  std::printf("back to 0\n");
}
