// fiber stop and ps on a run whose recorded pids now belong to other
// processes: the system reuses pids, so a record's pid is the run's only
// while the process there started when the record says (/proc start time).
#include <doctest/doctest.h>
#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "process_probe.hpp"
#include "subprocess.hpp"
#include "support/fiber_command.hpp"

using fiber::testing::Fiber;

namespace {

// A run record as fiber run writes it, whose launcher and master are pid
// with another start time: an unrelated process that got the pid later.
void WriteReusedRecord(Fiber& fiber, const std::string& id, long pid) {
  const std::string dir = fiber.state.path() + "/fiber/runs/" + id;
  std::filesystem::create_directories(dir + "/workers");
  const unsigned long long before = process_start(pid) - 1;
  nlohmann::json record = {{"id", id},           {"name", id},
                           {"program", "sleep"}, {"args", {"60"}},
                           {"backend", "local"}, {"settings", nlohmann::json::object()},
                           {"created", 1},       {"created_ns", 1},
                           {"supervisor_pid", pid}, {"supervisor_start", before},
                           {"master_pid", pid},  {"master_start", before}};
  std::ofstream(dir + "/run.json") << record.dump(2);
}

}  // namespace

TEST_CASE("fiber stop never signals a recorded pid that another process has now") {
  Fiber fiber;
  Child stranger = spawn({"/bin/sleep", "60"}, {});
  WriteReusedRecord(fiber, "reused-pid-run", stranger.pid);

  auto [status, out, err] = fiber.Run({"stop", "reused-pid-run"});
  CHECK_MESSAGE(status == 0, err);
  CHECK(err.find("run reused-pid-run has already ended") != std::string::npos);
  CHECK(process_alive(stranger.pid));

  auto [forced, forced_out, forced_err] = fiber.Run({"stop", "--force", "reused-pid-run"});
  CHECK_MESSAGE(forced == 0, forced_err);
  CHECK(process_alive(stranger.pid));

  const nlohmann::json ps = fiber.Ps();
  REQUIRE(ps.size() == 1);
  CHECK(ps[0]["state"] == "master died");

  ::kill(stranger.pid, SIGKILL);
  CHECK(wait_exit(stranger, 10) == 128 + SIGKILL);
}
