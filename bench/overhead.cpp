// Framework overhead of fiber::Pool, beside floors with no framework in them
// (the experiment of the Fiber paper, plus round trip and throughput):
//  - rounds: 5 workers run 5 x 1 s / d tasks that sleep d (100, 10, 1 ms),
//    submitted 5 at a time with apply_async, each round waited for before the
//    next (so 10, 100 and 1000 rounds: 1 s of ideal parallel time per d).
//    Floors: the same sleeps one after another in this process (serial), and
//    5 threads of this process sleeping in step, released and joined each
//    round through a std::barrier (perfect parallel workers);
//  - apply: the synchronous round trip of a no-op task, per call, beside a
//    raw ZeroMQ REQ/REP ping-pong with a forked child, plain and with CURVE;
//  - throughput: no-op tasks through imap_unordered with chunksize 1, and
//    through map with its default chunking.
// Floors and fiber alternate (round by round, block by block) so a noisy
// minute on a shared machine weighs on both sides of each ratio alike.
// Prints one JSON object on stdout. --quick (or FIBER_BENCH_QUICK=1) divides
// every count by 10.
#include <fiber/fiber.hpp>

#include <atomic>
#include <barrier>
#include <iostream>
#include <thread>
#include <vector>

#include "common.hpp"
#include "raw_pingpong.hpp"

using bench::Clock;
using bench::Json;

constexpr int kWorkers = 5;

void nap(int us) { std::this_thread::sleep_for(std::chrono::microseconds(us)); }
FIBER_TASK(nap);

int noop(int x) { return x; }
FIBER_TASK(noop);

namespace {

Json times(const std::vector<double>& round_seconds) {
  double total = 0;
  for (double s : round_seconds) total += s;
  const bench::Stats st = bench::summarize(round_seconds);
  return Json()
      .num("total_s", total)
      .num("round_ms", 1e3 * st.mean)
      .num("round_median_ms", 1e3 * st.median);
}

// The same sleeps one after another; a "round" is 5 of them.
std::vector<double> serial_floor(int us, int rounds) {
  std::vector<double> out;
  for (int r = 0; r < rounds; ++r) {
    const auto t0 = Clock::now();
    for (int i = 0; i < kWorkers; ++i) nap(us);
    out.push_back(bench::seconds_since(t0));
  }
  return out;
}

// 5 threads sleeping in step: released by one barrier, joined by another.
class ParallelFloor {
 public:
  explicit ParallelFloor(int us) : us_(us) {
    for (int i = 0; i < kWorkers; ++i)
      threads_.emplace_back([this] {
        for (;;) {
          start_.arrive_and_wait();
          if (stop_) return;
          nap(us_);
          done_.arrive_and_wait();
        }
      });
  }
  ~ParallelFloor() {
    stop_ = true;
    start_.arrive_and_wait();
  }  // then joins the threads
  double Round() {
    const auto t0 = Clock::now();
    start_.arrive_and_wait();
    done_.arrive_and_wait();
    return bench::seconds_since(t0);
  }

 private:
  int us_;
  std::barrier<> start_{kWorkers + 1}, done_{kWorkers + 1};
  std::atomic<bool> stop_{false};
  std::vector<std::jthread> threads_;
};

double fiber_round(fiber::Pool& pool, int us) {
  const auto t0 = Clock::now();
  std::vector<fiber::AsyncResult<void>> results;
  for (int i = 0; i < kWorkers; ++i) results.push_back(pool.apply_async(nap, us));
  for (auto& result : results) result.get();
  return bench::seconds_since(t0);
}

Json stats_us(const std::vector<double>& us) {
  const bench::Stats st = bench::summarize(us);
  return Json().num("calls", static_cast<double>(us.size())).num("mean_us", st.mean)
      .num("median_us", st.median).num("min_us", st.min);
}

void wait_ready(fiber::Pool& pool, std::size_t n) {
  for (;;) {
    const auto workers = pool.workers();
    std::size_t ready = 0;
    for (const auto& w : workers) ready += w.state == fiber::WorkerState::kReady;
    if (ready >= n) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

}  // namespace

int main(int argc, char** argv) {
  fiber::init(argc, argv);  // a worker serves tasks here and never returns
  const int div = bench::quick(argc, argv) ? 10 : 1;
  bench::RawPingPong raw(false), raw_curve(true);  // before any ZeroMQ context

  fiber::Pool pool(kWorkers);
  wait_ready(pool, kWorkers);
  for (int i = 0; i < 100; ++i) pool.apply(noop, i);  // warm-up

  Json rounds;
  for (int ms : {100, 10, 1}) {
    const int tasks = kWorkers * 1000 / ms / div;
    const int n = tasks / kWorkers;
    std::cerr << "rounds of " << ms << " ms sleeps: " << n << " rounds\n";
    std::vector<double> fiber_s, floor_s;
    {
      ParallelFloor floor(ms * 1000);
      for (int r = 0; r < n; ++r) {
        floor_s.push_back(floor.Round());
        fiber_s.push_back(fiber_round(pool, ms * 1000));
      }
    }
    rounds.obj(std::to_string(ms) + "ms",
               Json()
                   .num("sleep_ms", ms)
                   .num("tasks", tasks)
                   .num("rounds", n)
                   .obj("fiber", times(fiber_s))
                   .obj("parallel_floor", times(floor_s))
                   .obj("serial_floor", times(serial_floor(ms * 1000, n))));
  }

  std::cerr << "apply round trip, beside raw ZeroMQ\n";
  const int blocks = 50 / div, block = 100;
  for (int i = 0; i < 200; ++i) {  // warm-up
    pool.apply(noop, i);
    raw.RoundTripUs();
    raw_curve.RoundTripUs();
  }
  std::vector<double> rtt, raw_rtt, curve_rtt;
  for (int b = 0; b < blocks; ++b) {
    for (int i = 0; i < block; ++i) raw_rtt.push_back(raw.RoundTripUs());
    for (int i = 0; i < block; ++i) {
      const auto t0 = Clock::now();
      pool.apply(noop, i);
      rtt.push_back(1e6 * bench::seconds_since(t0));
    }
    for (int i = 0; i < block; ++i) curve_rtt.push_back(raw_curve.RoundTripUs());
  }

  std::cerr << "throughput\n";
  const int n = 20000 / div;
  std::vector<int> items(n);
  for (int i = 0; i < n; ++i) items[i] = i;
  auto t0 = Clock::now();
  long count = 0;
  for (int v : pool.imap_unordered(noop, items, 1)) count += v >= 0;
  const double imap_s = bench::seconds_since(t0);
  t0 = Clock::now();
  const auto mapped = pool.map(noop, items);
  const double map_s = bench::seconds_since(t0);
  if (count != n || static_cast<int>(mapped.size()) != n) {
    std::cerr << "wrong number of results\n";
    return 1;
  }

  pool.close();
  pool.join();

  std::cout << Json()
                   .num("workers", kWorkers)
                   .obj("rounds", rounds)
                   .obj("apply", stats_us(rtt))
                   .obj("raw_zmq", Json().obj("tcp", stats_us(raw_rtt)).obj("tcp_curve", stats_us(curve_rtt)))
                   .obj("throughput", Json()
                                          .num("tasks", n)
                                          .num("imap_unordered_chunksize1_per_s", n / imap_s)
                                          .num("map_default_chunking_per_s", n / map_s))
                   .text()
            << "\n";
}
