// A master and a worker that take turns to print, a second apart, for tests
// of fiber logs merging a run's logs in time order: the master prints
// "master 1", its worker "worker 2", the master "master 3", each flushed at
// once; it exits with the status its argument gives (0 without one).
#include <fiber/fiber.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

int say(int x) {
  std::printf("worker %d\n", x);
  std::fflush(stdout);
  std::this_thread::sleep_for(std::chrono::seconds(1));
  return x + 1;
}
FIBER_TASK(say);

int main(int argc, char** argv) {
  fiber::init(argc, argv);
  fiber::Pool pool(1);
  pool.apply(say, 0);  // the worker is ready: what follows is not its start-up
  std::printf("master 1\n");
  std::fflush(stdout);
  std::this_thread::sleep_for(std::chrono::seconds(1));
  std::printf("master %d\n", pool.apply(say, 2));
  std::fflush(stdout);
  return argc > 1 ? std::atoi(argv[1]) : 0;
}
