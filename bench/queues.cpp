// Fast queues against multiprocessing.Queue (issue 26's Queues targets),
// interleaved round by round: items/s from a producer Process to a consumer
// in the master, 100 B and 1 MB items, taken one get at a time and in
// get_many(64) batches; bench/mp_queue.py measures
// multiprocessing.Queue with the same shape in each round. Each run is
// timed from the producer's go to the last item got. Prints one JSON
// object of medians over the rounds and the median of the per-round
// ratios; each round's ratios go to stderr. --quick (or
// FIBER_BENCH_QUICK=1) divides the counts by 10. --only small|large|many
// runs that one of fiber's measures alone, round after round (for perf).
#include <fiber/fiber.hpp>

#include <cstdio>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "common.hpp"

using bench::Clock;
using bench::Json;

namespace {

// Says it is ready, waits for go, then puts n items of size bytes.
void produce(fiber::Queue<int> ready, fiber::Queue<int> go, fiber::Queue<std::string> q, int n,
             int bytes) {
  ready.put(1);
  go.get();
  const std::string item(static_cast<std::size_t>(bytes), 'x');
  for (int i = 0; i < n; ++i) q.put(item);
}
FIBER_TASK(produce);

// items/s through a fiber::Queue; batch 0: one get per item.
double fiber_items_per_s(int n, int bytes, std::size_t batch) {
  fiber::Queue<int> ready, go;
  fiber::Queue<std::string> q;
  fiber::Process producer(produce, ready, go, q, n, bytes);
  producer.start();
  ready.get();  // its start is not the queue's time
  const auto t0 = Clock::now();
  go.put(1);
  std::size_t got = 0;
  while (got < static_cast<std::size_t>(n)) {
    if (batch == 0) {
      (void)q.get();
      ++got;
    } else {
      got += q.get_many(batch).size();
    }
  }
  const double s = bench::seconds_since(t0);
  producer.join();
  return n / s;
}

// items/s through multiprocessing.Queue, the same shape.
double mp_items_per_s(int n, int bytes) {
  const std::string command = std::string("python3 ") + FIBER_MP_QUEUE + " " +
                              std::to_string(bytes) + " " + std::to_string(n);
  FILE* out = ::popen(command.c_str(), "r");
  if (!out) throw std::runtime_error("cannot run " + command);
  double rate = 0;
  const int read = std::fscanf(out, "%lf", &rate);
  if (::pclose(out) != 0 || read != 1) throw std::runtime_error(command + " failed");
  return rate;
}

struct Series {
  std::vector<double> fiber, mp, ratio;
  void add(double f, double m) {
    fiber.push_back(f);
    mp.push_back(m);
    ratio.push_back(f / m);
  }
  Json json() const {
    return Json()
        .num("fiber_items_per_s", bench::summarize(fiber).median)
        .num("mp_items_per_s", bench::summarize(mp).median)
        .num("ratio", bench::summarize(ratio).median);
  }
};

}  // namespace

int main(int argc, char** argv) {
  fiber::init(argc, argv);
  const int scale = bench::quick(argc, argv) ? 10 : 1;
  // 200 MB: all of it may wait in the master, within a worker's 256 MB.
  const int rounds = 5, small_n = 300000 / scale, large_n = 200 / scale;
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::string(argv[i]) != "--only") continue;
    const std::string only = argv[i + 1];
    for (int r = 0; r < rounds; ++r)
      std::cout << only << " " << (only == "large" ? fiber_items_per_s(large_n, 1 << 20, 0)
                                   : only == "many" ? fiber_items_per_s(small_n, 100, 64)
                                                    : fiber_items_per_s(small_n, 100, 0))
                << " items/s" << std::endl;
    return 0;
  }
  Series small, large, batched;
  std::vector<double> batch_over_get;  // get_many(64) over get, fiber alone
  for (int r = 0; r < rounds; ++r) {
    const double f_small = fiber_items_per_s(small_n, 100, 0);
    const double m_small = mp_items_per_s(small_n, 100);
    small.add(f_small, m_small);
    large.add(fiber_items_per_s(large_n, 1 << 20, 0), mp_items_per_s(large_n, 1 << 20));
    const double f_batched = fiber_items_per_s(small_n, 100, 64);
    batched.add(f_batched, m_small);
    batch_over_get.push_back(f_batched / f_small);
    std::fprintf(stderr,
                 "round %d/%d: 100 B %.0f/s vs %.0f/s = %.2fx; 1 MB %.0f/s vs %.0f/s = %.2fx; "
                 "get_many(64) %.0f/s = %.2fx\n",
                 r + 1, rounds, f_small, m_small, small.ratio.back(), large.fiber.back(),
                 large.mp.back(), large.ratio.back(), f_batched, batched.ratio.back());
  }
  std::cout << Json()
                   .num("rounds", rounds)
                   .obj("get_100B", small.json())
                   .obj("get_1MB", large.json())
                   .obj("get_many64_100B", batched.json().num(
                            "over_get", bench::summarize(batch_over_get).median))
                   .text()
            << "\n";
}
