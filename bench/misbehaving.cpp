// Tasks that misbehave (issue 26), two measures:
// - steal: a pool of 2 (prefetch 2) is given one 2 s task and then seven of
//   50 ms (apply_async, one task each): when the last short task is done,
//   against its floor (the seven on the one free worker, 0.35 s) and the
//   slow task's end. Without work stealing one waits behind the slow task.
// - at_once: what sending each result at once (a pool with a task_timeout)
//   costs tiny tasks: imap_unordered of 20,000 calls, chunksize 1, with and
//   without a task_timeout, interleaved.
// One JSON line per measure and round.
#include <fiber/fiber.hpp>

#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

int nap_ms(int ms) {
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
  return ms;
}
FIBER_TASK(nap_ms);

int tiny(int x) { return x + 1; }
FIBER_TASK(tiny);

double Since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

void Steal(int round) {
  fiber::Pool pool(2);
  pool.map(nap_ms, std::vector<int>(4, 100), 1);  // both workers up
  const auto t0 = Clock::now();
  auto slow = pool.apply_async(nap_ms, 2000);
  std::vector<fiber::AsyncResult<int>> short_ones;
  for (int i = 0; i < 7; ++i) short_ones.push_back(pool.apply_async(nap_ms, 50));
  double last_short = 0, slow_done = 0;
  for (std::size_t done = 0; done < short_ones.size() || slow_done == 0;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    done = 0;
    for (auto& r : short_ones) done += r.ready();
    if (done == short_ones.size() && last_short == 0) last_short = Since(t0);
    if (slow.ready() && slow_done == 0) slow_done = Since(t0);
  }
  std::printf("{\"measure\": \"steal\", \"round\": %d, \"last_short_s\": %.3f, \"floor_s\": 0.350, "
              "\"slow_s\": %.3f}\n", round, last_short, slow_done);
}

double TinyRate(bool at_once, int n) {
  fiber::PoolOptions options;
  options.processes = 2;
  if (at_once) options.task_timeout = std::chrono::seconds(60);
  fiber::Pool pool(options);
  pool.map(tiny, std::vector<int>(100, 1), 1);  // both workers up
  const auto t0 = Clock::now();
  long sum = 0;
  for (int v : pool.imap_unordered(tiny, std::vector<int>(static_cast<std::size_t>(n), 1))) sum += v;
  const double rate = n / Since(t0);
  return sum == 2L * n ? rate : 0;
}

}  // namespace

int main(int argc, char** argv) {
  fiber::init(argc, argv);
  for (int round = 0; round < 3; ++round) Steal(round);
  for (int round = 0; round < 3; ++round) {
    const double batched = TinyRate(false, 20000), at_once = TinyRate(true, 20000);
    std::printf("{\"measure\": \"at_once\", \"round\": %d, \"batched_per_s\": %.0f, "
                "\"at_once_per_s\": %.0f, \"ratio\": %.2f}\n", round, batched, at_once,
                at_once / batched);
  }
}
