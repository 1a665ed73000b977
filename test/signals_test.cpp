// A program's own signal handlers and fiber: signals the program handles
// (a graceful-stop handler, an interval timer, a profiler signalling each
// thread) never abort the run, whichever thread they land on.
#include <doctest/doctest.h>
#include <signal.h>

#include <fiber/fiber.hpp>
#include <string>

#include "subprocess.hpp"


// Whether SIGTERM is blocked on the thread that runs a worker's tasks.
int sigterm_blocked(int) {
  sigset_t mask;
  pthread_sigmask(SIG_BLOCK, nullptr, &mask);
  return sigismember(&mask, SIGTERM);
}
FIBER_TASK(sigterm_blocked);

TEST_CASE("workers start with no signal blocked, though fiber's own threads start them") {
  fiber::Pool pool(1);
  CHECK(pool.apply(sigterm_blocked, 0) == 0);
}

TEST_CASE("a program signalled over and over while its pool maps finishes with the right results") {
  const long m = 2000;
  auto master = spawn({built_program("signalled_pool"), "2", std::to_string(m)}, {});
  const std::string out = read_all(master.stdout_fd, 300);
  const std::string err = read_all(master.stderr_fd, 60);
  const int status = wait_exit(master, 60);
  CHECK_MESSAGE(status == 0, err);
  const long sum = (m - 1) * m * (2 * m - 1) / 6;
  CHECK_MESSAGE(out.find("sum " + std::to_string(sum) + "\n") != std::string::npos, out, err);
  // It was signalled while it ran, or the test tested nothing.
  const auto at = out.find("signals ");
  REQUIRE(at != std::string::npos);
  CHECK(std::stol(out.substr(at + 8)) > 0);
}
