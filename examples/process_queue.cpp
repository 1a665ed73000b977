// Process and Queue: three producer processes put their results on one
// queue that the main program reads; a queue passed to a Process is the same
// queue in every process. Each Process is a worker of the run's backend (a
// child here, a container or a pod elsewhere) that runs one call and exits.
//   ./build/examples/process_queue
#include <fiber/fiber.hpp>

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

using Item = std::pair<int, std::string>;  // a number and who made it

void produce(fiber::Queue<Item> queue, int first, int count) {
  for (int n = first; n < first + count; ++n) queue.put({n * n, fiber::current_process().id});
}
FIBER_TASK(produce);

int main(int argc, char** argv) {
  fiber::init(argc, argv);
  fiber::Queue<Item> queue;
  std::vector<fiber::Process> producers;
  for (int p = 0; p < 3; ++p) producers.emplace_back(produce, queue, p * 4, 4);
  for (auto& p : producers) p.start();

  long sum = 0;
  for (int i = 0; i < 3 * 4; ++i) {
    const auto [square, who] = queue.get();  // waits for the next item
    std::printf("got %d from %s\n", square, who.c_str());
    sum += square;
  }
  for (auto& p : producers) {
    p.join();
    std::printf("%s exited with %d\n", p.name().c_str(), p.exitcode().value_or(-1));
  }
  std::printf("sum %ld\n", sum);
}
