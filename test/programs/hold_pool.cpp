// A master that starts a pool, prints its workers' pids (one line, spaces
// between) once all are connected, then waits to be killed. With "busy" as
// second argument every worker is first given a task that sleeps for an
// hour; with "slow", every worker takes 3 s to get ready (its initializer
// sleeps); with "talk", every worker says "worker ready to talk" on its
// stdout as it gets ready. Tests use it to check that workers never outlive
// their master, and what is shown while workers start and run.
#include <fiber/fiber.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

void sleep_an_hour(int) { std::this_thread::sleep_for(std::chrono::hours(1)); }
FIBER_TASK(sleep_an_hour);

void sleep_3_s() { std::this_thread::sleep_for(std::chrono::seconds(3)); }
FIBER_TASK(sleep_3_s);

void say_ready() {
  std::printf("worker ready to talk\n");
  std::fflush(stdout);
}
FIBER_TASK(say_ready);

int main(int argc, char** argv) {
  fiber::init(argc, argv);
  const int n = argc > 1 ? std::atoi(argv[1]) : 2;
  const std::string mode = argc > 2 ? argv[2] : "";
  const bool busy = mode == "busy";
  fiber::PoolOptions options;
  options.processes = n;
  if (mode == "slow") options.initializer = fiber::call(sleep_3_s);
  if (mode == "talk") options.initializer = fiber::call(say_ready);
  fiber::Pool pool(options);
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
