// Master memory per connected worker: the resident set (VmRSS in
// /proc/self/status) of this master process before a Pool of N local workers
// is created and after all N are connected and ready (pool.workers() polled
// until every state is "ready"). The difference includes ZeroMQ's
// per-connection buffers and the CURVE state. Usage: memory N; prints one
// JSON object. bench/run starts it once per N so each count starts fresh.
#include <fiber/fiber.hpp>

#include <fstream>
#include <iostream>
#include <string>
#include <thread>

#include "common.hpp"
#include "process_probe.hpp"

namespace {

}  // namespace

int main(int argc, char** argv) {
  fiber::init(argc, argv);  // a worker serves tasks here and never returns
  const int n = argc > 1 ? std::stoi(argv[1]) : 256;

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
  pool.terminate();
  pool.join();

  std::cout << bench::Json()
                   .num("workers", n)
                   .num("rss_before_kb", before)
                   .num("rss_after_kb", after)
                   .num("per_worker_kb", double(after - before) / n)
                   .num("all_ready_s", start_s)
                   .text()
            << "\n";
}
