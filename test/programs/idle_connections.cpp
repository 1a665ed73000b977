// A master under a descriptor limit, for tests of what idle connections to
// its port cost it. Arguments: SOFT HARD FIFO. Sets RLIMIT_NOFILE to
// SOFT:HARD before fiber::init, maps on a pool of 2 workers, prints
// "endpoint ENDPOINT nofile N" (N: its soft limit once the run has started),
// then waits for a line on FIFO, maps on a new pool of 2 workers and prints
// "mapped" with the sum of the squares of 0..99.
#include <fiber/fiber.hpp>
#include <sys/resource.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <numeric>
#include <string>
#include <vector>

int square(int x) { return x * x; }
FIBER_TASK(square);

std::string getenv_task(std::string name) {
  const char* value = std::getenv(name.c_str());
  return value ? value : "";
}
FIBER_TASK(getenv_task);

long sum_of_squares() {
  fiber::Pool pool(2);
  std::vector<int> xs(100);
  std::iota(xs.begin(), xs.end(), 0);
  const std::vector<int> squares = pool.map(square, xs);
  return std::accumulate(squares.begin(), squares.end(), 0L);
}

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: idle_connections SOFT HARD FIFO\n");
    return 2;
  }
  const rlimit limit{std::strtoul(argv[1], nullptr, 10), std::strtoul(argv[2], nullptr, 10)};
  if (::setrlimit(RLIMIT_NOFILE, &limit) != 0) {
    std::perror("setrlimit");
    return 2;
  }
  fiber::init(argc, argv);
  {
    fiber::Pool pool(2);
    const std::string endpoint = pool.apply(getenv_task, std::string("FIBER_MASTER_ENDPOINT"));
    rlimit now{};
    ::getrlimit(RLIMIT_NOFILE, &now);
    std::printf("endpoint %s nofile %lu\n", endpoint.c_str(), static_cast<unsigned long>(now.rlim_cur));
    std::fflush(stdout);
  }
  std::string line;
  std::ifstream fifo(argv[3]);
  std::getline(fifo, line);
  std::printf("mapped %ld\n", sum_of_squares());
  std::fflush(stdout);
}
