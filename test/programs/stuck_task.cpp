// A master whose one-worker pool has a task_timeout of 3 s: task 0 says
// "task 0 starts" on its worker's stdout and never ends, so that worker is
// killed and replaced; task 1 runs on the replacement. Prints "timed out"
// and "result 10". Tests use it to check that a worker killed for its task
// keeps the output it wrote before.
#include <fiber/fiber.hpp>

#include <chrono>
#include <cstdio>
#include <thread>

using namespace std::chrono_literals;

int start_then_hang(int x) {
  std::printf("task %d starts\n", x);
  std::fflush(stdout);
  if (x == 0) std::this_thread::sleep_for(1h);
  return x * 10;
}
FIBER_TASK(start_then_hang);

int main(int argc, char** argv) {
  fiber::init(argc, argv);
  fiber::Pool pool(fiber::PoolOptions{.processes = 1, .task_timeout = 3s});
  try {
    pool.apply(start_then_hang, 0);
  } catch (const fiber::TimeoutError&) {
    std::printf("timed out\n");
  }
  std::printf("result %d\n", pool.apply(start_then_hang, 1));
  pool.close();
  pool.join();
}
