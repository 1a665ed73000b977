// The Slurm backend against limits a site's controller sets, on the real
// Slurm of test/slurm restarted with them (FIBER_SLURM_CONF_EXTRA; the
// plain config again after each case): job arrays cut at MaxArraySize, a
// full queue (MaxJobCount) making part of a pool wait in fiber with its
// reason in fiber ps, and a controller whose sbatch times out at first.
// Suite "slurm", under test/run's hold of the test Slurm.
#include <doctest/doctest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "subprocess.hpp"
#include "support/fiber_command.hpp"
#include "support/temp_dir.hpp"
#include "support/test_slurm.hpp"
#include "support/skip.hpp"

using fiber::testing::eventually;
using fiber::testing::Fiber;
using fiber::testing::JobsOf;
using fiber::testing::LiveJobs;
using fiber::testing::SlurmValue;
using nlohmann::json;

namespace {

std::vector<std::string> RunArgs(std::vector<std::string> rest) {
  return fiber::testing::ProfileRun(SlurmValue("FIBER_SLURM_FIBER_CONFIG"), "test-slurm", std::move(rest));
}

// test/slurm/up with these variables set (FIBER_SLURM_CONF_EXTRA, ...): up
// restarts the daemons when the config changes. Accounting stays as the
// Slurm was started (slurm.env).
bool SlurmUp(std::map<std::string, std::string> env) {
  const auto& started = fiber::testing::SlurmValues();
  if (const auto it = started.find("FIBER_SLURM_ACCOUNTING"); it != started.end()) env.emplace(it->first, it->second);
  std::string command;
  for (const auto& [name, value] : env) command += name + "='" + value + "' ";
  command += std::string(SLURM_UP) + " >/dev/null";
  return std::system(command.c_str()) == 0;
}

// The test Slurm restarted with extra lines in slurm.conf while it lives,
// the plain one after.
struct SlurmConfigured {
  explicit SlurmConfigured(std::map<std::string, std::string> env) { REQUIRE(SlurmUp(env)); }
  ~SlurmConfigured() { CHECK(SlurmUp({})); }
};

// How many of the run's workers wait in fiber, not submitted, for a
// refusal whose words sbatch said.
int HeldFor(Fiber& fiber, const std::string& run_id, const std::string& words) {
  int n = 0;
  const json run = fiber.PsOf(run_id);
  if (run.contains("jobs") && run["jobs"].is_array())
    for (const json& job : run["jobs"])
      n += job["state"] == "NOT_SUBMITTED" && job.value("waiting", "").find(words) != std::string::npos;
  return n;
}

// Ends the run and checks it left no job queued or running.
void StopAndCheck(Fiber& fiber, const std::string& run_id) {
  (void)fiber.Run({"stop", run_id});
  CHECK_MESSAGE(eventually([&] { return LiveJobs(run_id) == 0; }, 60), "run " << run_id << " left jobs");
}

std::string RunIdOf(const std::tuple<int, std::string, std::string>& detached) {
  const auto& [status, out, err] = detached;
  REQUIRE_MESSAGE(status == 0, err);
  return out.substr(0, out.find('\n'));
}

}  // namespace

// Each of the run's jobs is an array task below 50; how many arrays hold
// the workers numbered below first_workers (all, unless given), and how
// many workers there are.
std::pair<std::size_t, std::size_t> ArraysAndWorkers(const std::string& run_id, long first_workers = -1) {
  std::set<std::string> arrays, workers;
  for (const auto& job : JobsOf(run_id)) {
    const auto cut = job.job.find('_');
    // Once in four runs a job of the run read as index 54, not seen again
    // since this says what squeue listed: a job without an index is said.
    if (cut == std::string::npos) {
      WARN_MESSAGE(false, "a job of the run without an array index: " << job.job << " " << job.worker_id << " " << job.state);
      continue;
    }
    if (first_workers < 0 || (job.worker_id.size() > 1 && std::stol(job.worker_id.substr(1)) < first_workers))
      arrays.insert(job.job.substr(0, cut));
    CHECK_MESSAGE(std::stol(job.job.substr(cut + 1)) < 50, job.job << " " << job.worker_id << " " << job.state);
    workers.insert(job.worker_id);
  }
  return {arrays.size(), workers.size()};
}

TEST_CASE("120 workers under MaxArraySize=50: three job arrays, every index below 50, and every result") {
  // The node claims a CPU for each worker.
  SlurmConfigured slurm({{"FIBER_SLURM_CONF_EXTRA", "MaxArraySize=50"},
                         {"FIBER_SLURM_CPUS", "130"},
                         {"FIBER_SLURM_MEMORY_MB", "65536"}});
  Fiber fiber;
  // A map: every result, though the pool may end before its last arrays run.
  auto [status, out, err] = fiber.Run(RunArgs({built_program("slow_squares"), "120", "240"}));
  CHECK_MESSAGE(status == 0, err);
  CHECK(out == fiber::testing::SlowSquaresOutput(240));
  CHECK_MESSAGE(err.find("Invalid job array specification") == std::string::npos, err);
  const std::string mapped = fiber.Ps()[0]["id"];
  (void)ArraysAndWorkers(mapped);
  CHECK_MESSAGE(eventually([&] { return LiveJobs(mapped) == 0; }, 60), "run " << mapped << " left jobs");
  // All 120 at once: three arrays.
  const std::string held = RunIdOf(fiber.Run(RunArgs({"--detach", built_program("hold_pool"), "120"})));
  CHECK(eventually([&] { return fiber.PsOf(held)["workers_ready"] == 120; }, 180));
  // The pool's first 120 workers went as three arrays; a job Slurm failed
  // to launch (NODE_FAIL, seen once when slurmd timed out on a loaded
  // machine) is replaced by a worker of a later number, in an array of
  // its own.
  const auto [arrays, workers] = ArraysAndWorkers(held, 120);
  CHECK(workers >= 120);
  CHECK(arrays == 3);
  StopAndCheck(fiber, held);
}

TEST_CASE("a full queue (MaxJobCount) makes part of a pool wait in fiber, its reason in ps, until room appears") {
  // Ended jobs leave the queue (and free their place) soon.
  SlurmConfigured slurm(std::map<std::string, std::string>{{"FIBER_SLURM_CONF_EXTRA", "MaxJobCount=10\nMinJobAge=2"}});
  Fiber fiber;
  const std::string first = RunIdOf(fiber.Run(RunArgs({"--detach", built_program("hold_pool"), "8"})));
  REQUIRE(eventually([&] { return fiber.PsOf(first)["workers_ready"] == 8; }, 120));
  // 8 jobs of 10: a pool of 6 gets a few places, the others wait in fiber.
  const std::string second = RunIdOf(fiber.Run(RunArgs({"--detach", built_program("hold_pool"), "6"})));
  const auto held = [&] { return HeldFor(fiber, second, "temporarily unable to accept job"); };
  // Each result first, then the assertion: doctest evaluates a message
  // while the assertion runs, and a failing PsOf inside it deadlocks.
  const bool some_held = eventually([&] { return held() > 0; }, 60);
  REQUIRE_MESSAGE(some_held, fiber.PsOf(second).dump());
  CHECK(fiber.PsOf(second)["workers_ready"] < 6);
  auto [listed, table, table_err] = fiber.Run({"ps"});
  CHECK_MESSAGE(table.find("temporarily unable to accept job") != std::string::npos, table);
  // Room appears as the first run's jobs end: the others are submitted.
  StopAndCheck(fiber, first);
  const bool all_ready = eventually([&] { return fiber.PsOf(second)["workers_ready"] == 6; }, 180);
  CHECK_MESSAGE(all_ready, fiber.PsOf(second).dump());
  CHECK(held() == 0);
  StopAndCheck(fiber, second);
}

// root's association limited (sacctmgr) while it lives, as slurmctld has it.
struct RootLimited {
  RootLimited(const std::string& name, int value)
      : name(name), shown(name + "=" + std::to_string(value) + "(") {  // MaxSubmitJobs=4(used)
    Set(name + "=" + std::to_string(value), true);
  }
  ~RootLimited() { Set(name + "=-1", false); }  // -1: none
  void Set(const std::string& setting, bool limited) {
    (void)fiber::testing::Slurm({"sacctmgr", "-i", "modify", "user", "root", "set", setting});
    const bool seen = eventually(
        [&] {
          const auto said = fiber::testing::Slurm({"scontrol", "show", "assoc_mgr", "users=root", "flags=assoc"});
          return (said.find(shown) != std::string::npos) == limited;
        },
        30);
    CHECK_MESSAGE(seen, "slurmctld does not have " << setting);
  }
  std::string name, shown;
};

TEST_CASE("a per-user MaxSubmitJobs (slurmdbd) makes part of a pool wait in fiber, its reason in ps; a map under it gives every result") {
  const auto& started = fiber::testing::SlurmValues();
  if (!started.count("FIBER_SLURM_ACCOUNTING") || started.at("FIBER_SLURM_ACCOUNTING") != "1") {
    FIBER_SKIP("the test Slurm runs without accounting (start it with FIBER_SLURM_ACCOUNTING=1 test/slurm/up)");
  }
  RootLimited limit("MaxSubmitJobs", 4);
  const std::string refused = "Job violates accounting/QOS policy";
  Fiber fiber;
  // 8 one-per-job workers: 4 submitted, the others wait in fiber.
  const std::string pool = RunIdOf(fiber.Run(RunArgs({"--detach", built_program("hold_pool"), "8"})));
  // The message apart: doctest evaluates it when an assertion fails within.
  const bool held =
      eventually([&] { return fiber.PsOf(pool)["workers_ready"] == 4 && HeldFor(fiber, pool, refused) > 0; }, 120);
  REQUIRE_MESSAGE(held, fiber.PsOf(pool).dump());
  CHECK(fiber.PsOf(pool)["workers_ready"] == 4);
  auto [listed, table, table_err] = fiber.Run({"ps"});
  CHECK_MESSAGE(table.find(refused) != std::string::npos, table);
  StopAndCheck(fiber, pool);
  // A map by 8 workers under the limit: those submitted give every result.
  Fiber mapper;
  auto [status, out, err] = mapper.Run(RunArgs({built_program("slow_squares"), "8", "240"}));
  CHECK_MESSAGE(status == 0, err);
  CHECK(out == fiber::testing::SlowSquaresOutput(240));
  const std::string mapped = mapper.Ps()[0]["id"];
  CHECK_MESSAGE(eventually([&] { return LiveJobs(mapped) == 0; }, 60), "run " << mapped << " left jobs");
}

TEST_CASE("sbatch timing out at first is tried again: the run goes on and gives every result") {
  Fiber fiber;
  // sbatch first on PATH fails its first two tries as a busy controller
  // makes it, then is Slurm's own.
  fiber::testing::TempDir bin;
  const std::string wrapper = bin.write(
      "sbatch", "#!/bin/sh\necho x >> '" + bin.path() + "/tries'\n"
                "[ \"$(wc -l < '" + bin.path() + "/tries')\" -gt 2 ] && exec /usr/bin/sbatch \"$@\"\n"
                "echo 'sbatch: error: Batch job submission failed: Socket timed out on send/recv operation' >&2\n"
                "exit 1\n");
  ::chmod(wrapper.c_str(), 0755);
  fiber.env["PATH"] = bin.path() + ":" + std::getenv("PATH");
  auto [status, out, err] = fiber.Run(RunArgs({built_program("chatty_pool"), "3"}));
  CHECK_MESSAGE(status == 3, err);
  CHECK(out == "result 10\nresult 20\nresult 30\nresult 40\n");
  std::ifstream tries(bin.path() + "/tries");
  int n = 0;
  for (std::string line; std::getline(tries, line);) ++n;
  CHECK(n == 3);
  const std::string run_id = fiber.Ps()[0]["id"];
  CHECK_MESSAGE(eventually([&] { return LiveJobs(run_id) == 0; }, 60), "run " << run_id << " left jobs");
}
