// A master whose pool of N workers maps M tasks of 300 ms each (squares of
// 0..M-1, one task per chunk), then prints "sum S". Long enough for a test
// to lose a worker in the middle; the sum says whether every task's result
// arrived exactly once. With "hosts" as third argument the map starts once
// every worker is ready, each task also says the host name of the worker
// that ran it, and a second line "hosts H1 H2 ..." lists them, sorted.
#include <fiber/fiber.hpp>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <set>
#include <string>
#include <thread>
#include <vector>

long square_slowly(long x) {
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  return x * x;
}
FIBER_TASK(square_slowly);

// "HOST SQUARE".
std::string square_where(long x) {
  char host[256] = {};
  (void)::gethostname(host, sizeof host - 1);
  return std::string(host) + " " + std::to_string(square_slowly(x));
}
FIBER_TASK(square_where);

int main(int argc, char** argv) {
  fiber::init(argc, argv);
  const int n = argc > 1 ? std::atoi(argv[1]) : 2;
  const long m = argc > 2 ? std::atol(argv[2]) : 40;
  const bool hosts = argc > 3 && std::string(argv[3]) == "hosts";
  fiber::Pool pool(n);
  std::vector<long> xs(static_cast<std::size_t>(m));
  std::iota(xs.begin(), xs.end(), 0L);
  long sum = 0;
  if (!hosts) {
    for (long y : pool.map(square_slowly, xs, 1)) sum += y;
    std::printf("sum %ld\n", sum);
    return 0;
  }
  for (int ready = 0; ready < n;) {
    ready = 0;
    for (const auto& w : pool.workers()) ready += w.state == fiber::WorkerState::kReady;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  std::set<std::string> names;
  for (const std::string& y : pool.map(square_where, xs, 1)) {
    names.insert(y.substr(0, y.find(' ')));
    sum += std::atol(y.c_str() + y.find(' ') + 1);
  }
  std::printf("sum %ld\nhosts", sum);
  for (const std::string& name : names) std::printf(" %s", name.c_str());
  std::printf("\n");
}
