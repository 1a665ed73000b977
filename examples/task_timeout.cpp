// Tasks that misbehave: an episode that hangs is abandoned after the pool's
// task_timeout (its worker killed and replaced, its call raising
// fiber::TimeoutError); a worker is replaced after max_tasks_per_child
// episodes, as one would a simulator that leaks; and short episodes queued
// behind a long one are taken back for idle workers (work stealing).
//   ./build/examples/task_timeout
#include <fiber/fiber.hpp>

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <set>
#include <thread>
#include <utility>
#include <vector>

using namespace std::chrono_literals;

// Heavy-tailed episode lengths: most short, every tenth long, one stuck.
std::pair<int, long> episode(int seed) {
  if (seed == 13) std::this_thread::sleep_for(1h);
  const int ms = seed % 10 == 0 ? 1000 : 10 + seed % 7 * 5;
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
  return {ms, static_cast<long>(::getpid())};
}
FIBER_TASK(episode);

int main(int argc, char** argv) {
  fiber::init(argc, argv);
  fiber::Pool pool(
      fiber::PoolOptions{.processes = 4, .task_timeout = 2s, .max_tasks_per_child = 10});

  std::vector<fiber::AsyncResult<std::pair<int, long>>> episodes;
  for (int seed = 0; seed < 40; ++seed) episodes.push_back(pool.apply_async(episode, seed));
  int done = 0, abandoned = 0;
  std::set<long> processes;
  for (auto& e : episodes) {
    try {
      processes.insert(e.get().second);
      ++done;
    } catch (const fiber::TimeoutError& err) {
      ++abandoned;
      std::printf("abandoned: %s\n", err.what());
    }
  }
  std::printf("%d episodes done, %d abandoned, on %zu worker processes\n", done, abandoned,
              processes.size());
  pool.close();
  pool.join();
}
