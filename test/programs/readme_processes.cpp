// The README's example of section "Processes, queues, pipes and managers",
// whole: four Processes square numbers from a Queue into a Manager's Dict.
// It prints each exit code and the dict's size; a run of it says nothing
// on stderr (test/process_test.cpp, test/installed/cases/silent_success.sh).
#include <fiber/fiber.hpp>
#include <cstdio>
#include <vector>
void worker(fiber::Queue<int> jobs, fiber::Dict<int, int> results) {
  for (int x; (x = jobs.get()) >= 0;) results.set(x, x * x);
}
FIBER_TASK(worker);
int main(int argc, char** argv) {
  fiber::init(argc, argv);
  fiber::Manager m;
  auto results = m.dict<int, int>();
  fiber::Queue<int> jobs;
  std::vector<fiber::Process> ps;
  for (int i = 0; i < 4; ++i) ps.emplace_back(worker, jobs, results);
  for (auto& p : ps) p.start();
  for (int x = 0; x < 100; ++x) jobs.put(x);
  for (int i = 0; i < 4; ++i) jobs.put(-1);
  for (auto& p : ps) p.join();
  for (auto& p : ps) std::printf("exitcode %d\n", p.exitcode().value_or(-100));
  std::printf("size %zu\n", results.size());
}
