// Remote objects against their floor, a raw ZeroMQ REQ/REP ping-pong with
// CURVE (issue 9's benchmark, then issue 26's calls in one hop), all in
// interleaved blocks so each sees the same machine at the same minutes:
//  - call from the master: the synchronous round trip of a method call
//    (master -> manager -> master), and Pool::apply of a no-op for scale;
//  - call from a worker: the same from a Pool task, timed inside it (in
//    one hop: worker -> manager -> worker, when the worker reaches the
//    manager's own endpoint), and beside it the path a worker falls back
//    to, through the master (a manager that tells its callers an address
//    where nothing listens, FIBER_MANAGER_HOST=127.0.0.2);
//  - eight environments in two managers stepped at once: eight calls, then
//    eight gets, from the master and from a worker;
//  - async throughput of one caller to one object: a block of calls made
//    at once, then their gets, from the master and from a worker.
// Each sync measure is also divided by the raw round trip of its own block;
// the medians of those ratios are what to read on a shared machine. Prints
// one JSON object on stdout. --quick (or FIBER_BENCH_QUICK=1) divides
// every count by 10.
#include <fiber/fiber.hpp>

#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "common.hpp"
#include "raw_pingpong.hpp"

using bench::Clock;
using bench::Json;

namespace {

int noop(int x) { return x; }
FIBER_TASK(noop);

class Echo {
 public:
  int echo(int x) { return x; }
};
FIBER_CLASS(Echo, &Echo::echo);

// A stand-in for a small simulator: a step is a few arithmetic operations.
class Env {
 public:
  explicit Env(int seed) : state_(seed) {}
  double step(int action) { return state_ = state_ * 0.5 + action; }

 private:
  double state_;
};
FIBER_CLASS(Env, &Env::step);

using Envs = std::vector<fiber::RemoteObject<Env>>;

// Microseconds per synchronous call.
double sync_calls_us(fiber::RemoteObject<Echo> echo, int n) {
  const auto t0 = Clock::now();
  for (int i = 0; i < n; ++i) echo.call(&Echo::echo, i).get();
  return 1e6 * bench::seconds_since(t0) / n;
}
FIBER_TASK(sync_calls_us);

// Microseconds per round of every env stepped at once.
double step_all_us(Envs envs, int rounds) {
  const auto t0 = Clock::now();
  std::vector<fiber::AsyncResult<double>> steps;
  for (int r = 0; r < rounds; ++r) {
    steps.clear();
    for (auto& env : envs) steps.push_back(env.call(&Env::step, r & 1));
    for (auto& s : steps) s.get();
  }
  return 1e6 * bench::seconds_since(t0) / rounds;
}
FIBER_TASK(step_all_us);

// Calls per second, n made at once and then awaited.
double async_calls_per_s(fiber::RemoteObject<Echo> echo, int n) {
  std::vector<fiber::AsyncResult<int>> pending;
  pending.reserve(n);
  const auto t0 = Clock::now();
  for (int i = 0; i < n; ++i) pending.push_back(echo.call(&Echo::echo, i));
  for (auto& p : pending) p.get();
  return n / bench::seconds_since(t0);
}
FIBER_TASK(async_calls_per_s);

}  // namespace

int main(int argc, char** argv) {
  bench::RawPingPong raw(true);  // before any ZeroMQ context
  fiber::init(argc, argv);
  const int scale = bench::quick(argc, argv) ? 10 : 1;

  fiber::Manager manager, other;
  auto echo = manager.make<Echo>();
  ::setenv("FIBER_MANAGER_HOST", "127.0.0.2", 1);
  fiber::Manager unreachable;
  auto echo_via_master = unreachable.make<Echo>();
  ::unsetenv("FIBER_MANAGER_HOST");
  Envs envs;
  for (int i = 0; i < 8; ++i) envs.push_back((i % 2 ? other : manager).make<Env>(i));
  fiber::Pool pool(1);
  // Each measure of a block over the raw round trip of the same block: on
  // a shared machine the load moves between blocks, less within one.
  std::vector<double> raw_us, call_us, worker_call_us, via_master_us, apply_us, step_us, worker_step_us,
      async_rate, worker_async_rate;
  std::vector<double> call_x, worker_call_x, via_master_x, step_x, worker_step_x;
  const int blocks = 40, per_block = 200 / scale, steps = per_block / 8, async_block = 5000 / scale;
  pool.apply(sync_calls_us, echo, 10);  // the worker connects to the manager
  pool.apply(sync_calls_us, echo_via_master, 10);  // and gives up on this one
  for (int b = 0; b < blocks; ++b) {
    double sum = 0;
    for (int i = 0; i < per_block; ++i) sum += raw.RoundTripUs();
    const double zmq = sum / per_block;
    raw_us.push_back(zmq);
    call_us.push_back(sync_calls_us(echo, per_block));
    worker_call_us.push_back(pool.apply(sync_calls_us, echo, per_block));
    via_master_us.push_back(pool.apply(sync_calls_us, echo_via_master, per_block));
    step_us.push_back(step_all_us(envs, steps));
    worker_step_us.push_back(pool.apply(step_all_us, envs, steps));
    for (auto [x, v] : {std::pair(&call_x, &call_us), std::pair(&worker_call_x, &worker_call_us),
                        std::pair(&via_master_x, &via_master_us), std::pair(&step_x, &step_us),
                        std::pair(&worker_step_x, &worker_step_us)})
      x->push_back(v->back() / zmq);
    auto t0 = Clock::now();
    for (int i = 0; i < per_block; ++i) pool.apply(noop, i);
    apply_us.push_back(1e6 * bench::seconds_since(t0) / per_block);
    async_rate.push_back(async_calls_per_s(echo, async_block));
    worker_async_rate.push_back(pool.apply(async_calls_per_s, echo, async_block));
  }
  auto median = [](const std::vector<double>& v) { return bench::summarize(v).median; };
  std::cout << Json()
                   .obj("call_us", Json()
                                       .num("raw_zmq_curve", median(raw_us))
                                       .num("from_master", median(call_us))
                                       .num("from_worker", median(worker_call_us))
                                       .num("from_worker_via_master", median(via_master_us))
                                       .num("pool_apply", median(apply_us)))
                   .obj("call_over_raw", Json()
                                             .num("from_master", median(call_x))
                                             .num("from_worker", median(worker_call_x))
                                             .num("from_worker_via_master", median(via_master_x)))
                   .obj("eight_envs_us", Json()
                                             .num("from_master", median(step_us))
                                             .num("from_worker", median(worker_step_us)))
                   .obj("eight_envs_over_raw", Json()
                                                   .num("from_master", median(step_x))
                                                   .num("from_worker", median(worker_step_x)))
                   .obj("async_calls_per_s", Json()
                                                 .num("from_master", median(async_rate))
                                                 .num("from_worker", median(worker_async_rate)))
                   .text()
            << "\n";
}
