// Why a worker ended, as fiber run says it: each lost worker once on
// stderr and in the run's log, with the cause in a user's words (the
// signal, the memory limit, a lost connection), the task and item it ran
// and the retries left. The real fiber command and test/programs/ending_pool.
#include <doctest/doctest.h>

#include <string>

#include "subprocess.hpp"
#include "support/fiber_command.hpp"
#include "support/packaged_images.hpp"
#include "support/test_image.hpp"  // TestEngineName
#include "support/skip.hpp"

using fiber::testing::Fiber;
using fiber::testing::Occurrences;

namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr const char* kCrashName = "SIGABRT";
#else
constexpr const char* kCrashName = "SIGSEGV";
#endif

// The master's log of the run fiber ran last, as fiber logs shows it.
std::string LastRunLog(Fiber& fiber) {
  const nlohmann::json runs = fiber.Ps();
  REQUIRE(runs.size() >= 1);
  auto [status, out, err] = fiber.Run({"logs", runs[0]["id"].get<std::string>()});
  CHECK_MESSAGE(status == 0, err);
  return out;
}

}  // namespace

TEST_CASE("a worker killed by a signal in a task is reported once, with the signal, the task and item, and the "
          "retries left") {
  Fiber fiber;
  auto [status, out, err] = fiber.Run({"run", "--prefetch", "1", built_program("ending_pool"), "crash"});
  CHECK(status == 1);
  const std::string lost = std::string(" lost: killed by ") + kCrashName + " while running crash_on_three";
  CHECK_MESSAGE(Occurrences(err, lost) == 3, err);
  // Each loss once, counting down to the failure the program sees.
  for (const char* left : {" (item 3); 2 retries left\n", " (item 3); 1 retry left\n",
                           " (item 3); no retries left, so it fails\n"})
    CHECK_MESSAGE(Occurrences(err, left) == 1, left << " in " << err);
  CHECK_MESSAGE(out.find("lost: task 'crash_on_three") != std::string::npos, out);
  // The run's log keeps what stderr said.
  const std::string log = LastRunLog(fiber);
  CHECK_MESSAGE(Occurrences(log, lost) == 3, log);
}

TEST_CASE("a worker whose process froze is lost with its connection, naming the task") {
  Fiber fiber;
  auto [status, out, err] = fiber.Run({"run", "--heartbeat-interval", "500ms", "--heartbeat-timeout", "3s",
                                       built_program("ending_pool"), "freeze"});
  CHECK(status == 1);
  CHECK_MESSAGE(Occurrences(err, " lost: its connection was lost and no end of its process was reported") == 1,
                err);
  CHECK_MESSAGE(err.find("while running freeze") != std::string::npos, err);
  CHECK_MESSAGE(err.find("(item 0); no retries left, so it fails") != std::string::npos, err);
}

TEST_CASE("a container killed for its memory limit is reported as such, with the limit") {
  if (fiber::testing::TestEngineName() != "docker") {
    FIBER_SKIP("only Docker's events say a container was killed for its memory (Podman 4.3's do not)");
  }
  fiber::testing::RemovePackagedImagesAtExit(built_program("ending_pool"));
  Fiber fiber;
  // A limit a worker built with AddressSanitizer starts within (its shadow
  // memory takes ~180 MB), which the task's 2 GiB then exceeds.
  auto [status, out, err] = fiber.Run({"run", "--backend", "docker", "--memory", "512Mi",
                                       built_program("ending_pool"), "hog", "2048"});
  CHECK(status == 1);
  CHECK_MESSAGE(Occurrences(err, " lost: killed for using more than its memory limit of 512Mi (OOM) while running "
                                 "fill_memory") == 1,
                err);
  CHECK_MESSAGE(out.find("(OOM)") != std::string::npos, out);
}
