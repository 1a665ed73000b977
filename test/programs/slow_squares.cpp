// A master whose pool of N workers maps M tasks of 300 ms each (squares of
// 0..M-1, one task per chunk), then prints "sum S". Long enough for a test
// to lose a worker in the middle; the sum says whether every task's result
// arrived exactly once.
#include <fiber/fiber.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <thread>
#include <vector>

long square_slowly(long x) {
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  return x * x;
}
FIBER_TASK(square_slowly);

int main(int argc, char** argv) {
  fiber::init(argc, argv);
  const int n = argc > 1 ? std::atoi(argv[1]) : 2;
  const long m = argc > 2 ? std::atol(argv[2]) : 40;
  fiber::Pool pool(n);
  std::vector<long> xs(static_cast<std::size_t>(m));
  std::iota(xs.begin(), xs.end(), 0L);
  long sum = 0;
  for (long y : pool.map(square_slowly, xs, 1)) sum += y;
  std::printf("sum %ld\n", sum);
}
