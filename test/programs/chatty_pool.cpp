// A master whose workers talk: each task prints a line on the worker's
// stdout and one on its stderr; the master prints each result on its own
// stdout, and exits with the status its argument gives (0 without one).
// Tests of fiber run use it to check whose output goes where.
#include <fiber/fiber.hpp>

#include <cstdio>
#include <cstdlib>
#include <vector>

int shout(int x) {
  std::printf("worker says %d\n", x);
  std::fflush(stdout);
  std::fprintf(stderr, "worker warns %d\n", x);
  return x * 10;
}
FIBER_TASK(shout);

int main(int argc, char** argv) {
  fiber::init(argc, argv);
  fiber::Pool pool(2);
  for (int y : pool.map(shout, std::vector<int>{1, 2, 3, 4}, 1)) std::printf("result %d\n", y);
  return argc > 1 ? std::atoi(argv[1]) : 0;
}
