// Process start on the local backend: rounds of N Processes of a no-op,
// started together and joined, with a Pool up beside them as in a program
// that has both; the time from start() until every one has connected to the
// master (its pid known), and until every one is joined (its exit is seen
// on the master's next tick, every 100 ms, so that time moves in steps of
// it). The run's one fork
// server forks each Process's worker; before the run owned its backends,
// each Process started a fork server of its own (the program started
// again). Prints one JSON object; bench/run runs it.
#include <fiber/fiber.hpp>

#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include "common.hpp"

void nothing() {}
FIBER_TASK(nothing);

int twice(int x) { return 2 * x; }
FIBER_TASK(twice);

int main(int argc, char** argv) {
  fiber::init(argc, argv);
  const bool quick = bench::quick(argc, argv);
  const int n = argc > 1 && argv[1][0] != '-' ? std::atoi(argv[1]) : 8;
  const int rounds = quick ? 3 : 15;
  fiber::Pool pool(2);
  (void)pool.apply(twice, 1);
  std::vector<double> connected, joined;
  for (int round = 0; round < rounds + 1; ++round) {
    const auto t0 = bench::Clock::now();
    std::vector<fiber::Process> processes;
    for (int i = 0; i < n; ++i) processes.emplace_back(nothing);
    for (auto& p : processes) p.start();
    for (auto& p : processes)
      while (p.pid() == 0) std::this_thread::sleep_for(std::chrono::microseconds(200));
    const double all_connected = bench::seconds_since(t0);
    for (auto& p : processes) p.join();
    if (round == 0) continue;  // it warms up
    connected.push_back(all_connected);
    joined.push_back(bench::seconds_since(t0));
  }
  const bench::Stats c = bench::summarize(connected), j = bench::summarize(joined);
  std::printf("%s\n", bench::Json()
                          .num("processes", n)
                          .num("rounds", rounds)
                          .num("connected_median_s", c.median)
                          .num("connected_min_s", c.min)
                          .num("per_process_ms", c.median / n * 1e3)
                          .num("joined_median_s", j.median)
                          .text()
                          .c_str());
}
