// Where the time of a call goes, hop by hop: run in a build with
// -Dhop_trace=true (bench/stages sets one up), whose runtime marks each hop
// of a task (runtime/src/diagnostics/hop_trace.hpp) in every process of the
// run; bench/stages_report.py lines the marks up. Two workloads, one after
// the other, each after a warm-up:
//   back-to-back apply(noop) on one worker, one call in flight;
//   rounds of 5 apply_async(nap, 1 ms) on 5 workers, all 5 waited for.
// Usage: apply_stages CALLS ROUNDS; the marks go to $FIBER_HOP_TRACE_DIR.
// Between the workloads it sleeps 200 ms, which the report reads as the
// boundary; it prints nothing itself.
#include <fiber/fiber.hpp>

#include <chrono>
#include <cstdlib>
#include <thread>
#include <vector>

void nap(int us) { std::this_thread::sleep_for(std::chrono::microseconds(us)); }
FIBER_TASK(nap);
int noop(int x) { return x; }
FIBER_TASK(noop);

int main(int argc, char** argv) {
  fiber::init(argc, argv);  // a worker serves tasks here and never returns
  const int calls = argc > 1 ? std::atoi(argv[1]) : 2000;
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 1000;
  {
    fiber::Pool one(1);
    for (int i = 0; i < calls; ++i) (void)one.apply(noop, i);
    one.close();  // workers that end on STOP write their marks as they exit
    one.join();
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  fiber::Pool five(5);
  for (int r = 0; r < rounds; ++r) {
    std::vector<fiber::AsyncResult<void>> results;
    for (int i = 0; i < 5; ++i) results.push_back(five.apply_async(nap, 1000));
    for (auto& result : results) result.get();
  }
  five.close();
  five.join();
  return 0;
}
