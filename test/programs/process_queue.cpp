// A master that starts two fiber::Processes, each putting its number
// squared and its id on one fiber::Queue, the second then failing on
// purpose. It prints the items in the order of their numbers ("item 1 w0",
// "item 4 w1"), then each process's exit code ("exitcodes 0 1"). Tests use
// it to see Processes and Queues work on a backend's workers (jobs, pods).
#include <fiber/fiber.hpp>

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

void report(fiber::Queue<std::pair<int, std::string>> queue, int n) {
  queue.put({n * n, fiber::current_process().id});
  if (n == 2) throw std::runtime_error("failing on purpose");
}
FIBER_TASK(report);

int main(int argc, char** argv) {
  fiber::init(argc, argv);
  fiber::Queue<std::pair<int, std::string>> queue;
  std::vector<fiber::Process> processes;
  for (int n : {1, 2}) processes.emplace_back(report, queue, n);
  for (auto& p : processes) p.start();
  std::vector<std::pair<int, std::string>> items = {queue.get(), queue.get()};
  std::sort(items.begin(), items.end());
  for (const auto& [value, id] : items) std::printf("item %d %s\n", value, id.c_str());
  for (auto& p : processes) p.join();
  std::printf("exitcodes %d %d\n", processes[0].exitcode().value_or(-100), processes[1].exitcode().value_or(-100));
}
