// Errors from workers: a task that throws reaches the caller as
// fiber::RemoteError with the original type and message, and its worker
// goes on; a task whose worker dies (here it kills itself) runs again on a
// new worker and, dying every time, fails with fiber::WorkerLost. Every
// fiber error derives from fiber::Error. The other tasks are not affected.
//   ./build/examples/errors
#include <fiber/fiber.hpp>

#include <csignal>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

int checked_half(int x) {
  if (x % 2 != 0) throw std::invalid_argument(std::to_string(x) + " is odd");
  return x / 2;
}
FIBER_TASK(checked_half);

int crash_on_13(int x) {
  if (x == 13) std::raise(SIGKILL);  // as if the machine lost the worker
  return x;
}
FIBER_TASK(crash_on_13);

int main(int argc, char** argv) {
  fiber::init(argc, argv);
  fiber::PoolOptions options;
  options.processes = 2;
  options.max_task_retries = 1;  // a task lost twice fails
  fiber::Pool pool(options);

  try {
    pool.apply(checked_half, 7);
  } catch (const fiber::RemoteError& e) {
    std::printf("task threw %s: %s\n", e.type().c_str(), e.message().c_str());
  }
  std::printf("checked_half(8) = %d\n", pool.apply(checked_half, 8));

  try {
    pool.apply(crash_on_13, 13);
  } catch (const fiber::WorkerLost& e) {
    std::printf("task 13 failed: worker lost: %s\n", e.what());
  } catch (const fiber::Error& e) {
    std::printf("task 13 failed: %s\n", e.what());
  }
  // The pool replaced its lost workers and goes on.
  int sum = 0;
  for (int y : pool.map(crash_on_13, std::vector<int>{10, 11, 12, 14, 15})) sum += y;
  std::printf("sum of the others %d\n", sum);
}
