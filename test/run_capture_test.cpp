// RunCapture with inputs larger than a pipe holds: the helper gets all of
// it, or stops reading without taking this process (or the SIGPIPE
// handling of its other threads) with it.
#include <doctest/doctest.h>

#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <string>

#include "os/run_capture.hpp"

namespace {

std::atomic<int> pipe_signals{0};
void CountPipeSignal(int) { ++pipe_signals; }

// The input: several pipe buffers' worth.
std::string LargeInput() { return std::string(8 << 20, 'x'); }

}  // namespace

TEST_CASE("a helper that stops reading its input early ends the capture cleanly; SIGPIPE is untouched") {
  struct sigaction counting {}, before {}, after {};
  counting.sa_handler = CountPipeSignal;
  sigemptyset(&counting.sa_mask);
  REQUIRE(::sigaction(SIGPIPE, &counting, &before) == 0);
  pipe_signals = 0;

  fiber::Capture what;
  what.argv = {"head", "-c", "10"};
  what.input = LargeInput();
  what.timeout_ms = 60000;
  fiber::Captured got;
  std::string err;
  REQUIRE_MESSAGE(fiber::RunCapture(what, &got, &err), err);
  CHECK(got.status == 0);
  CHECK_FALSE(got.timed_out);
  CHECK(got.output == "xxxxxxxxxx");

  REQUIRE(::sigaction(SIGPIPE, nullptr, &after) == 0);
  CHECK((after.sa_handler == &CountPipeSignal));  // the disposition the program set, all along
  CHECK(pipe_signals == 0);                    // and the broken pipe never signalled it
  sigset_t mask, pending;
  REQUIRE(::pthread_sigmask(SIG_SETMASK, nullptr, &mask) == 0);
  CHECK(sigismember(&mask, SIGPIPE) == 0);  // this thread's mask as it was
  REQUIRE(::sigpending(&pending) == 0);
  CHECK(sigismember(&pending, SIGPIPE) == 0);
  ::sigaction(SIGPIPE, &before, nullptr);
}

TEST_CASE("a helper that writes much before it reads still gets all of a large input") {
  // It fills its output pipe before reading: the input must go in as the
  // output comes out, or both ends wait on each other.
  fiber::Capture what;
  what.argv = {"sh", "-c", "head -c 1000000 /dev/zero; wc -c"};
  what.input = LargeInput();
  what.timeout_ms = 120000;
  fiber::Captured got;
  std::string err;
  REQUIRE_MESSAGE(fiber::RunCapture(what, &got, &err), err);
  CHECK_FALSE(got.timed_out);
  CHECK(got.status == 0);
  REQUIRE(got.output.size() > 1000000);
  CHECK(std::stol(got.output.substr(1000000)) == static_cast<long>(what.input.size()));
}
