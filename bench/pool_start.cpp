// A pool's start and round trip on whatever backend the run's settings
// name (run it under `fiber run`, e.g. with --backend kubernetes): for N
// workers, the time from making the pool to its first result and to all
// workers ready, then the median `apply` round trip of a no-op over K calls;
// and the wall-clock time of the first result, for bench/run to time fiber
// run itself. Prints one JSON object. bench/run --kubernetes runs it beside the local
// backend.
#include <fiber/fiber.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include "common.hpp"

int nothing(int x) { return x; }
FIBER_TASK(nothing);

int main(int argc, char** argv) {
  fiber::init(argc, argv);
  const int n = argc > 1 ? std::atoi(argv[1]) : 1;
  const int calls = argc > 2 ? std::atoi(argv[2]) : 200;
  const auto t0 = bench::Clock::now();
  fiber::Pool pool(n);
  (void)pool.apply(nothing, 1);
  const double first = bench::seconds_since(t0);
  // The wall clock, for bench/run to time fiber run itself to this point
  // (the same clock inside a pod of the test cluster, on this machine).
  const double first_at =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  for (;;) {
    int ready = 0;
    for (const auto& w : pool.workers()) ready += w.state == fiber::WorkerState::kReady;
    if (ready == n) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  const double all_ready = bench::seconds_since(t0);
  std::vector<double> trips;
  for (int i = 0; i < calls; ++i) {
    const auto t = bench::Clock::now();
    (void)pool.apply(nothing, i);
    trips.push_back(bench::seconds_since(t));
  }
  std::printf("%s\n", bench::Json()
                          .num("workers", n)
                          .num("first_result_s", first)
                          .str("first_result_at", std::to_string(first_at))
                          .num("all_ready_s", all_ready)
                          .num("apply_median_us", bench::summarize(trips).median * 1e6)
                          .text()
                          .c_str());
}
