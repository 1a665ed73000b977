// A master that resizes its pool as a test asks: it starts a pool of 1,
// prints "workers 1" once that one is ready, grows it to 3 and prints
// "workers 3" once all are ready, then waits for SIGUSR1, shrinks it to 1,
// prints "workers 1" once the others are gone, and after another SIGUSR1
// maps on what is left and prints the sum. Tests use it to see a backend add and remove
// workers (containers, pods) as a pool is resized.
#include <fiber/fiber.hpp>

#include <signal.h>

#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>

int twice(int x) { return 2 * x; }
FIBER_TASK(twice);

int main(int argc, char** argv) {
  fiber::init(argc, argv);
  // Blocked before the pool's threads start, so they inherit it and only
  // sigwait takes it.
  sigset_t usr1;
  sigemptyset(&usr1);
  sigaddset(&usr1, SIGUSR1);
  pthread_sigmask(SIG_BLOCK, &usr1, nullptr);
  fiber::Pool pool(1);
  auto settle = [&](std::size_t n) {
    for (;;) {
      const auto workers = pool.workers();
      std::size_t ready = 0;
      for (const auto& w : workers) ready += w.state == fiber::WorkerState::kReady;
      if (workers.size() == n && ready == n) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    std::printf("workers %zu\n", n);
    std::fflush(stdout);
  };
  settle(1);
  pool.resize(3);
  settle(3);
  int sig = 0;
  sigwait(&usr1, &sig);
  pool.resize(1);
  settle(1);
  sigwait(&usr1, &sig);
  int sum = 0;
  for (int y : pool.map(twice, std::vector<int>{1, 2, 3, 4})) sum += y;
  std::printf("sum %d\n", sum);
}
