// A master whose pool of N workers maps M short tasks (one per chunk), prints
// "done SUM", then waits until the file named by its third argument exists
// (at most two minutes), so a test can read the run's final numbers while
// it still runs.
#include <fiber/fiber.hpp>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <thread>
#include <vector>

long square_briefly(long x) {
  std::this_thread::sleep_for(std::chrono::milliseconds(5 * (x % 7)));
  return x * x;
}
FIBER_TASK(square_briefly);

int main(int argc, char** argv) {
  fiber::init(argc, argv);
  if (argc < 4) {
    std::fprintf(stderr, "usage: metrics_map WORKERS TASKS DONE_FILE\n");
    return 2;
  }
  fiber::Pool pool(std::atoi(argv[1]));
  std::vector<long> xs(static_cast<std::size_t>(std::atol(argv[2])));
  std::iota(xs.begin(), xs.end(), 0L);
  long sum = 0;
  for (long y : pool.map(square_briefly, xs, 1)) sum += y;
  std::printf("done %ld\n", sum);
  std::fflush(stdout);
  for (int i = 0; i < 1200 && ::access(argv[3], F_OK) != 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  return 0;
}
