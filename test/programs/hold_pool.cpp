// A master that starts a pool, prints its workers' pids (one line, spaces
// between) once all are connected, then waits to be killed. With "busy" as
// second argument every worker is first given a task that sleeps for an
// hour. Tests use it to check that workers never outlive their master.
#include <fiber/fiber.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

void sleep_an_hour(int) { std::this_thread::sleep_for(std::chrono::hours(1)); }
FIBER_TASK(sleep_an_hour);

int main(int argc, char** argv) {
  fiber::init(argc, argv);
  const int n = argc > 1 ? std::atoi(argv[1]) : 2;
  const bool busy = argc > 2 && std::string(argv[2]) == "busy";
  fiber::Pool pool(n);
  // Polls until every worker is ready (and, if busy, running its task).
  auto wait_all = [&](bool running) {
    for (;;) {
      auto workers = pool.workers();
      int ok = 0;
      for (const auto& w : workers) ok += w.state == fiber::WorkerState::kReady && (!running || w.running > 0);
      if (ok == n) return workers;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  };
  auto workers = wait_all(false);
  // Submitted once all are ready, so each worker gets one.
  auto pending = pool.map_async(sleep_an_hour, std::vector<int>(busy ? n : 0), 1);
  if (busy) workers = wait_all(true);
  for (const auto& w : workers) std::printf("%ld ", w.pid);
  std::printf("\n");
  std::fflush(stdout);
  std::this_thread::sleep_for(std::chrono::hours(1));
}
