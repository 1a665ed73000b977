// Remote objects against their floors (issue 9's benchmark; its queue
// measure is bench/queues.cpp's now):
//  - call: the synchronous round trip of a remote-object method (a manager
//    call: master -> manager -> master), beside Pool::apply of a no-op and
//    a raw ZeroMQ REQ/REP ping-pong with CURVE, interleaved block by block.
// Prints one JSON object on stdout. --quick (or FIBER_BENCH_QUICK=1) divides
// every count by 10.
#include <fiber/fiber.hpp>

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

}  // namespace

int main(int argc, char** argv) {
  bench::RawPingPong raw(true);  // before any ZeroMQ context
  fiber::init(argc, argv);
  const int scale = bench::quick(argc, argv) ? 10 : 1;

  fiber::Manager manager;
  auto echo = manager.make<Echo>();
  fiber::Pool pool(1);
  std::vector<double> call_us, apply_us, raw_us;
  const int blocks = 10, per_block = 500 / scale;
  for (int b = 0; b < blocks; ++b) {
    auto t0 = Clock::now();
    for (int i = 0; i < per_block; ++i) echo.call(&Echo::echo, i).get();
    call_us.push_back(1e6 * bench::seconds_since(t0) / per_block);
    t0 = Clock::now();
    for (int i = 0; i < per_block; ++i) pool.apply(noop, i);
    apply_us.push_back(1e6 * bench::seconds_since(t0) / per_block);
    double sum = 0;
    for (int i = 0; i < per_block; ++i) sum += raw.RoundTripUs();
    raw_us.push_back(sum / per_block);
  }
  const auto call = bench::summarize(call_us), apply = bench::summarize(apply_us),
             zmq = bench::summarize(raw_us);
  std::cout << Json()
                   .obj("call_us", Json()
                                       .num("remote_object", call.median)
                                       .num("pool_apply", apply.median)
                                       .num("raw_zmq_curve", zmq.median)
                                       .num("remote_over_raw", call.median / zmq.median))
                   .text()
            << "\n";
}
