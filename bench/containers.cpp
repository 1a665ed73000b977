// Workers in containers beside local ones (issue 10), the program half;
// bench/run --containers runs it under `fiber run --backend local` and
// `--backend docker` (or podman), alternating, and reports the ratios.
//   containers --first     one Pool worker, one no-op apply, prints
//                          "result 1" and ends: fiber run to first result
//   containers --measure   2 workers, once ready: the apply round trip of a
//                          no-op task and no-op throughput (imap_unordered,
//                          chunksize 1); prints one JSON object
// --quick divides the counts by 10.
#include <fiber/fiber.hpp>

#include <cstdio>
#include <cstring>
#include <iostream>
#include <thread>
#include <vector>

#include "common.hpp"

namespace {

int noop(int x) { return x; }
FIBER_TASK(noop);

constexpr int kWorkers = 2;

void wait_ready(fiber::Pool& pool, std::size_t n) {
  for (;;) {
    std::size_t ready = 0;
    for (const auto& w : pool.workers()) ready += w.state == fiber::WorkerState::kReady;
    if (ready >= n) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

int Measure(int div) {
  fiber::Pool pool(kWorkers);
  wait_ready(pool, kWorkers);
  for (int i = 0; i < 200; ++i) pool.apply(noop, i);  // warm-up
  std::vector<double> rtt;
  for (int i = 0; i < 2000 / div; ++i) {
    const auto t0 = bench::Clock::now();
    pool.apply(noop, i);
    rtt.push_back(1e6 * bench::seconds_since(t0));
  }
  const int n = 20000 / div;
  std::vector<int> items(n);
  for (int i = 0; i < n; ++i) items[i] = i;
  const auto t0 = bench::Clock::now();
  long count = 0;
  for (int v : pool.imap_unordered(noop, items, 1)) count += v >= 0;
  const double took = bench::seconds_since(t0);
  pool.close();
  pool.join();
  if (count != n) {
    std::cerr << "wrong number of results\n";
    return 1;
  }
  const bench::Stats st = bench::summarize(rtt);
  std::cout << bench::Json()
                   .num("workers", kWorkers)
                   .num("apply_calls", static_cast<double>(rtt.size()))
                   .num("apply_mean_us", st.mean)
                   .num("apply_median_us", st.median)
                   .num("noop_tasks", n)
                   .num("noop_per_s", n / took)
                   .text()
            << std::endl;
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  fiber::init(argc, argv);  // a worker serves tasks here and never returns
  const int div = bench::quick(argc, argv) ? 10 : 1;
  if (argc > 1 && std::strcmp(argv[1], "--first") == 0) {
    fiber::Pool pool(1);
    std::printf("result %d\n", pool.apply(noop, 1));
    std::fflush(stdout);
    return 0;
  }
  if (argc > 1 && std::strcmp(argv[1], "--measure") == 0) return Measure(div);
  std::cerr << "usage: containers --first | --measure [--quick] (run by bench/run --containers)\n";
  return 2;
}
