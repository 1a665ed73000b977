// Pool map and imap_unordered: map returns every result in item order at
// once; imap_unordered hands each result over as soon as it is ready, so
// the program can show progress while the rest still run.
//   ./build/examples/pool_map
#include <fiber/fiber.hpp>

#include <chrono>
#include <cstdio>
#include <numeric>
#include <thread>
#include <vector>

long slow_square(long x) {
  std::this_thread::sleep_for(std::chrono::milliseconds(20 * (x % 5)));  // uneven work
  return x * x;
}
FIBER_TASK(slow_square);  // tasks travel by name: register each one

int main(int argc, char** argv) {
  fiber::init(argc, argv);  // in a worker, serves tasks and never returns

  fiber::Pool pool(4);
  std::vector<long> xs(20);
  std::iota(xs.begin(), xs.end(), 1L);

  // map: all results, in the order of xs.
  long sum = 0;
  for (long y : pool.map(slow_square, xs)) sum += y;
  std::printf("map: sum of squares %ld\n", sum);

  // imap_unordered: one result at a time, in the order they finish.
  std::size_t done = 0;
  sum = 0;
  for (long y : pool.imap_unordered(slow_square, xs)) {
    sum += y;
    std::printf("result %ld (%zu/%zu)\n", y, ++done, xs.size());
  }
  std::printf("imap_unordered: sum of squares %ld\n", sum);
  std::printf("done %zu/%zu\n", done, xs.size());
}
