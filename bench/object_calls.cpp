// What a remote-object call costs in system calls, not in time (which a
// shared machine's load moves): MODE N makes N calls, and bench/call_syscalls
// counts them with strace against N = 0. MODE: master or worker (N
// synchronous calls from the master or from a Pool task), eight or
// eight_worker (N rounds of eight environments in two managers stepped at
// once), raw (N raw ZeroMQ REQ/REP round trips with CURVE, the floor).
// Prints the microseconds per call or round, for a look only.
#include <fiber/fiber.hpp>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "common.hpp"
#include "raw_pingpong.hpp"

namespace {

class Echo {
 public:
  int echo(int x) { return x; }
};
FIBER_CLASS(Echo, &Echo::echo);

double sync_calls_us(fiber::RemoteObject<Echo> echo, int n) {
  const auto t0 = bench::Clock::now();
  for (int i = 0; i < n; ++i) echo.call(&Echo::echo, i).get();
  return n ? 1e6 * bench::seconds_since(t0) / n : 0;
}
FIBER_TASK(sync_calls_us);

double step_all_us(std::vector<fiber::RemoteObject<Echo>> envs, int rounds) {
  const auto t0 = bench::Clock::now();
  std::vector<fiber::AsyncResult<int>> steps;
  for (int r = 0; r < rounds; ++r) {
    steps.clear();
    for (auto& env : envs) steps.push_back(env.call(&Echo::echo, r));
    for (auto& s : steps) s.get();
  }
  return rounds ? 1e6 * bench::seconds_since(t0) / rounds : 0;
}
FIBER_TASK(step_all_us);

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 2 ? argv[1] : "";
  const int n = argc > 2 ? std::atoi(argv[2]) : 0;
  if (mode == "raw") {  // before any ZeroMQ context
    bench::RawPingPong raw(true);
    double sum = 0;
    for (int i = 0; i < n; ++i) sum += raw.RoundTripUs();
    std::printf("raw %.1f us\n", n ? sum / n : 0);
    return 0;
  }
  fiber::init(argc, argv);
  if (mode != "master" && mode != "worker" && mode != "eight" && mode != "eight_worker") {
    std::fprintf(stderr, "usage: object_calls master|worker|eight|eight_worker|raw N\n");
    return 2;
  }
  fiber::Manager manager, other;
  auto echo = manager.make<Echo>();
  std::vector<fiber::RemoteObject<Echo>> envs;
  for (int i = 0; i < 8; ++i) envs.push_back((i % 2 ? other : manager).make<Echo>());
  fiber::Pool pool(1);
  // Both paths connected before the count: what N = 0 also does.
  pool.apply(sync_calls_us, echo, 10);
  pool.apply(step_all_us, envs, 2);
  sync_calls_us(echo, 10);
  step_all_us(envs, 2);
  double us = 0;
  if (mode == "master") us = sync_calls_us(echo, n);
  if (mode == "worker") us = pool.apply(sync_calls_us, echo, n);
  if (mode == "eight") us = step_all_us(envs, n);
  if (mode == "eight_worker") us = pool.apply(step_all_us, envs, n);
  std::printf("%s %.1f us\n", mode.c_str(), us);
}
