// An elastic pool through a burst and the idle time after it (issue 12):
// PoolOptions{min_processes 2, max_processes 32, idle_timeout 2 s} is given
// a burst of 3,000 calls of 20 ms (chunksize 1: one task each, so waiting
// tasks are what make it grow), then left idle until it is back at its
// minimum. Every 100 ms one JSON line: the time since the burst was
// submitted, the phase, the workers by state and the calls they hold. Last
// line: a summary (peak workers, burst time against the ideal at the peak,
// time back to the minimum after the burst). --quick: 300 calls.
#include <fiber/fiber.hpp>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <numeric>
#include <thread>
#include <vector>

#include "common.hpp"

namespace {

constexpr int kMin = 2, kMax = 32, kTaskMs = 20;
constexpr auto kIdleTimeout = std::chrono::seconds(2);
constexpr auto kSample = std::chrono::milliseconds(100);

int nap_20ms(int i) {
  std::this_thread::sleep_for(std::chrono::milliseconds(kTaskMs));
  return i;
}
FIBER_TASK(nap_20ms);

struct Sample {
  int workers = 0, starting = 0, ready = 0, retiring = 0, running = 0;
};

Sample Take(const fiber::Pool& pool) {
  Sample s;
  for (const auto& w : pool.workers()) {
    ++s.workers;
    s.starting += w.state == fiber::WorkerState::kStarting;
    s.ready += w.state == fiber::WorkerState::kReady;
    s.retiring += w.state == fiber::WorkerState::kRetiring;
    s.running += w.running;
  }
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  fiber::init(argc, argv);  // a worker serves tasks here and never returns
  const int tasks = 3000 / (bench::quick(argc, argv) ? 10 : 1);

  fiber::PoolOptions options;
  options.min_processes = kMin;
  options.max_processes = kMax;
  options.idle_timeout = kIdleTimeout;
  fiber::Pool pool(options);
  // The burst comes to a pool at its minimum, as after a quiet spell.
  while (Take(pool).ready < kMin) std::this_thread::sleep_for(std::chrono::milliseconds(10));

  std::vector<int> items(tasks);
  std::iota(items.begin(), items.end(), 0);
  const auto t0 = bench::Clock::now();
  auto burst = pool.map_async(nap_20ms, items, 1);
  double burst_s = -1, back_s = -1;
  int peak = 0;
  for (auto next = t0;; ) {
    const Sample s = Take(pool);
    const double t = bench::seconds_since(t0);
    if (burst_s < 0 && burst.ready()) burst_s = t;
    peak = std::max(peak, s.workers);
    std::cout << bench::Json()
                     .num("t_s", t)
                     .str("phase", burst_s < 0 ? "burst" : "idle")
                     .num("workers", s.workers)
                     .num("starting", s.starting)
                     .num("ready", s.ready)
                     .num("retiring", s.retiring)
                     .num("running", s.running)
                     .text()
              << std::endl;
    if (burst_s >= 0 && s.workers <= kMin) {
      back_s = t - burst_s;
      break;
    }
    if (t > 120) break;  // it did not shrink back; the summary says so
    next += kSample;
    std::this_thread::sleep_until(next);
  }
  const auto results = burst.get();
  const bool all_once = static_cast<int>(results.size()) == tasks &&
                        std::equal(results.begin(), results.end(), items.begin());
  std::cout << bench::Json()
                   .obj("summary",
                        bench::Json()
                            .num("min_processes", kMin)
                            .num("max_processes", kMax)
                            .num("idle_timeout_s", std::chrono::duration<double>(kIdleTimeout).count())
                            .num("tasks", tasks)
                            .num("task_ms", kTaskMs)
                            .num("every_result_once", all_once ? 1 : 0)
                            .num("peak_workers", peak)
                            .num("burst_s", burst_s)
                            .num("ideal_at_max_s", std::ceil(double(tasks) / kMax) * kTaskMs / 1e3)
                            .num("back_to_min_after_burst_s", back_s))
                   .text()
            << std::endl;
  pool.close();
  pool.join();
  return all_once && back_s >= 0 ? 0 : 1;
}
