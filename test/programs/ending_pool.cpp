// A program whose workers end badly, for tests of how fiber says why:
//   ending_pool crash    a map of 6 items, one task each, on 2 workers
//                        allowing 2 retries; item 3 kills its worker with
//                        SIGSEGV (SIGABRT when sanitized) each time, the
//                        others take 200 ms
//   ending_pool hog MIB  one task filling MIB MiB of memory, no retry
//   ending_pool freeze   one task that stops its worker (SIGSTOP), no retry
// Each prints the pool's error ("lost: ...") and exits 1 when the work is
// lost, or "done" and 0.
#include <fiber/fiber.hpp>
#include <signal.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

namespace {

// AddressSanitizer turns a SIGSEGV into its own report and exit status 1;
// it leaves SIGABRT alone.
#if defined(__SANITIZE_ADDRESS__)
constexpr int kCrash = SIGABRT;
#else
constexpr int kCrash = SIGSEGV;
#endif

}  // namespace

// Slow enough that a worker asks for one task at a time (with --prefetch
// 1): what a worker ran as it crashed is item 3 alone.
int crash_on_three(int x) {
  if (x == 3) ::raise(kCrash);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  return x;
}
FIBER_TASK(crash_on_three);

long fill_memory(long mib) {
  std::vector<char> memory(static_cast<std::size_t>(mib) << 20);
  std::memset(memory.data(), 1, memory.size());
  return static_cast<long>(memory.size());
}
FIBER_TASK(fill_memory);

int freeze(int x) {
  ::raise(SIGSTOP);
  return x;
}
FIBER_TASK(freeze);

int main(int argc, char** argv) {
  fiber::init(argc, argv);
  const std::string mode = argc > 1 ? argv[1] : "";
  fiber::PoolOptions options;
  options.processes = mode == "crash" ? 2 : 1;
  options.max_task_retries = mode == "crash" ? 2 : 0;
  fiber::Pool pool(options);
  try {
    if (mode == "crash") {
      std::vector<int> xs(6);
      std::iota(xs.begin(), xs.end(), 0);
      pool.map(crash_on_three, xs, 1);
    } else if (mode == "hog") {
      pool.apply(fill_memory, argc > 2 ? std::atol(argv[2]) : 256L);
    } else if (mode == "freeze") {
      pool.apply(freeze, 1);
    } else {
      std::fprintf(stderr, "usage: ending_pool crash | hog MIB | freeze\n");
      return 2;
    }
  } catch (const fiber::WorkerLost& e) {
    std::printf("lost: %s\n", e.what());
    return 1;
  }
  std::printf("done\n");
  return 0;
}
