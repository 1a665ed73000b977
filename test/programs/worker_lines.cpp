// A program whose output comes at volume, for tests of how worker output is
// relayed (cli's worker_output_test, the installed stage):
//   worker_lines lines N   2 tasks on 2 workers, each printing N/2 lines
//                          "t<task> <i>" on its stdout, i counting from 0
//   worker_lines long N    one task printing N bytes ("0123456789" over and
//                          over) and no newline
//   worker_lines ticks     the master printing "tick <i>" on its stdout every
//                          50 ms until stopped, never flushing
#include <fiber/fiber.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

// All at once, as fast as a worker can write: a relay then finds much of
// it waiting at once, which is where a relay that is not linear shows.
int print_lines(int task, long n) {
  std::string text;
  for (long i = 0; i < n; ++i) text += "t" + std::to_string(task) + " " + std::to_string(i) + "\n";
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
  return task;
}
FIBER_TASK(print_lines);

int print_long(long n) {
  std::string text(static_cast<std::size_t>(n), ' ');
  for (long i = 0; i < n; ++i) text[static_cast<std::size_t>(i)] = static_cast<char>('0' + i % 10);
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
  return 0;
}
FIBER_TASK(print_long);

int main(int argc, char** argv) {
  fiber::init(argc, argv);
  const std::string mode = argc > 1 ? argv[1] : "";
  const long n = argc > 2 ? std::atol(argv[2]) : 0;
  if (mode == "ticks") {
    for (long i = 0;; ++i) {
      std::printf("tick %ld\n", i);
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  fiber::Pool pool(2);
  if (mode == "lines") {
    std::vector<fiber::AsyncResult<int>> done;
    for (int task = 0; task < 2; ++task) done.push_back(pool.apply_async(print_lines, task, n / 2));
    for (auto& d : done) d.get();
  } else if (mode == "long") {
    pool.apply(print_long, n);
  } else {
    std::fprintf(stderr, "usage: worker_lines lines N | long N | ticks\n");
    return 2;
  }
  std::printf("done\n");
  return 0;
}
