// A master that starts a pool, prints its workers' pids (one line, spaces
// between) once all are connected, then waits to be killed. Tests use it to
// check that workers never outlive their master.
#include <fiber/fiber.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

int main(int argc, char** argv) {
  fiber::init(argc, argv);
  const int n = argc > 1 ? std::atoi(argv[1]) : 2;
  fiber::Pool pool(n);
  for (;;) {
    auto workers = pool.workers();
    int connected = 0;
    for (const auto& w : workers) connected += w.pid > 0;
    if (connected == n) {
      for (const auto& w : workers) std::printf("%ld ", w.pid);
      std::printf("\n");
      std::fflush(stdout);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  std::this_thread::sleep_for(std::chrono::hours(1));
}
