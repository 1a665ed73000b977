// A Pool at scale: the master's resident set (VmRSS in /proc/self/status)
// before a Pool of N local workers is created and once all N are ready, the
// time until then, and then one generation of 2,048 calls of 100 ms (the
// ideal is ceil(2048 / N) x 100 ms). Workers replaced on the way (refused,
// lost, given up) show as worker ids past w(N-1): the run numbers its
// workers w0, w1, ... as it starts them. Once all are ready, the master's
// CPU time (user + system, its own process only) over 5 s of idling with
// them connected: what each worker's connection costs it while nothing
// runs (heartbeats). Usage: memory N [--no-generation]; prints one JSON
// object. bench/run starts it once per N so each count starts fresh.
#include <fiber/fiber.hpp>

#include <sys/resource.h>

#include <cmath>
#include <cstring>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "common.hpp"
#include "process_probe.hpp"

namespace {

int nap_100ms(int i) {
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  return i;
}
FIBER_TASK(nap_100ms);

// The master process's CPU seconds so far, user and system.
double cpu_seconds() {
  struct rusage u {};
  ::getrusage(RUSAGE_SELF, &u);
  return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

long highest_worker_number(const fiber::Pool& pool) {
  long highest = 0;
  for (const auto& w : pool.workers()) highest = std::max(highest, std::stol(w.id.substr(1)));
  return highest;
}

}  // namespace

int main(int argc, char** argv) {
  fiber::init(argc, argv);  // a worker serves tasks here and never returns
  const int n = argc > 1 ? std::stoi(argv[1]) : 256;
  const bool generation = !(argc > 2 && std::strcmp(argv[2], "--no-generation") == 0);

  const long before = resident_kb();
  const auto t0 = bench::Clock::now();
  fiber::Pool pool(n);
  std::size_t ready = 0;
  while (ready < static_cast<std::size_t>(n)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    ready = 0;
    for (const auto& w : pool.workers()) ready += w.state == fiber::WorkerState::kReady;
    if (bench::seconds_since(t0) > 300) {
      std::cerr << "only " << ready << " of " << n << " workers ready after 300 s\n";
      return 1;
    }
  }
  const double start_s = bench::seconds_since(t0);
  const long after = resident_kb();
  bench::Json out;
  out.num("workers", n)
      .num("rss_before_kb", before)
      .num("rss_after_kb", after)
      .num("per_worker_kb", double(after - before) / n)
      .num("all_ready_s", start_s);
  const double cpu0 = cpu_seconds();
  const auto i0 = bench::Clock::now();
  std::this_thread::sleep_for(std::chrono::seconds(5));
  out.num("idle_master_cpu_per_s", (cpu_seconds() - cpu0) / bench::seconds_since(i0));
  if (generation) {
    std::vector<int> items(2048);
    for (int i = 0; i < 2048; ++i) items[i] = i;
    const auto g0 = bench::Clock::now();
    const auto results = pool.map(nap_100ms, items, 1);
    const double generation_s = bench::seconds_since(g0);
    bool all = results.size() == items.size();
    for (int i = 0; all && i < 2048; ++i) all = results[i] == i;
    if (!all) {
      std::cerr << "the generation's results are wrong\n";
      return 1;
    }
    out.num("generation_s", generation_s)
        .num("generation_ideal_s", std::ceil(2048.0 / n) * 0.1);
  }
  out.num("workers_replaced", double(highest_worker_number(pool) + 1 - n));
  pool.terminate();
  pool.join();
  std::cout << out.text() << "\n";
}
