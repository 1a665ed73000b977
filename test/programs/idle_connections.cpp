// A master under a descriptor limit, for tests of what idle connections to
// its port cost it. Arguments: SOFT HARD FIFO [WORKERS]. Sets RLIMIT_NOFILE
// to SOFT:HARD before fiber::init, maps on a pool of 2 workers, prints
// "endpoint ENDPOINT nofile N" (N: its soft limit once the run has started),
// then waits for a line on FIFO ("go", or "go N" for N rounds), and in each
// round maps on a new pool of WORKERS (2 unless given) and prints "mapped"
// with the sum of the squares of 0..99, then, once every worker of that
// pool has connected (or after 5 minutes), "workers" and the number of each
// worker of the pool that has connected (a worker lost is replaced by one
// with a number of its own).
#include <fiber/fiber.hpp>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

int square(int x) { return x * x; }
FIBER_TASK(square);

std::string getenv_task(std::string name) {
  const char* value = std::getenv(name.c_str());
  return value ? value : "";
}
FIBER_TASK(getenv_task);

// "mapped SUM", then "workers N N ..." once all have connected.
void map_and_list(int workers) {
  fiber::Pool pool(workers);
  std::vector<int> xs(100);
  std::iota(xs.begin(), xs.end(), 0);
  const std::vector<int> squares = pool.map(square, xs);
  std::printf("mapped %ld\n", std::accumulate(squares.begin(), squares.end(), 0L));
  std::fflush(stdout);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(5);
  std::vector<fiber::WorkerInfo> infos = pool.workers();
  while (std::chrono::steady_clock::now() < deadline &&
         std::any_of(infos.begin(), infos.end(), [](const fiber::WorkerInfo& w) { return w.pid == 0; })) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    infos = pool.workers();
  }
  std::string line = "workers";
  for (const fiber::WorkerInfo& w : infos)
    if (w.pid != 0) line += " " + w.id.substr(1);  // "w3" -> "3"
  std::printf("%s\n", line.c_str());
  std::fflush(stdout);
}

int main(int argc, char** argv) {
  if (argc != 4 && argc != 5) {
    std::fprintf(stderr, "usage: idle_connections SOFT HARD FIFO [WORKERS]\n");
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
  const int rounds = line.size() > 3 ? std::atoi(line.c_str() + 3) : 1;
  for (int round = 0; round < rounds; ++round) map_and_list(argc == 5 ? std::atoi(argv[4]) : 2);
}
