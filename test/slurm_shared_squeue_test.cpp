// One squeue for all of a user's runs (backend/slurm/shared_squeue.hpp), on
// the real Slurm of test/slurm: three runs of one user at once, squeue
// counted by a wrapper first on PATH (only the masters' squeue of all the
// user's jobs: fiber ps names its runs). Suite "slurm".
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "support/fiber_command.hpp"
#include "support/temp_dir.hpp"
#include "support/test_slurm.hpp"

using fiber::testing::eventually;
using fiber::testing::Fiber;
using fiber::testing::JobsOf;
using fiber::testing::LiveJobs;
using fiber::testing::SlurmValue;

namespace {

struct Call {
  double at = 0;  // seconds
  long pid = 0;   // the master that ran it
};

// The calls the wrapper counted.
std::vector<Call> Calls(const std::string& file) {
  std::vector<Call> calls;
  std::ifstream in(file);
  for (Call c; in >> c.at >> c.pid;) calls.push_back(c);
  return calls;
}

std::string MasterLog(Fiber& fiber, const std::string& id) {
  auto [status, out, err] = fiber.Run({"logs", id});
  return out;
}

std::string DetachedHoldPool(Fiber& fiber) {
  // 12 GiB each on a node of 16: one runs, the others wait for Resources.
  auto [status, out, err] = fiber.Run(fiber::testing::ProfileRun(
      SlurmValue("FIBER_SLURM_FIBER_CONFIG"), "test-slurm",
      {"--detach", "--memory", "12Gi", built_program("hold_pool"), "1"}));
  REQUIRE_MESSAGE(status == 0, err);
  return out.substr(0, out.find('\n'));
}

// The runs of a test, stopped as it ends however it ends; none may leave
// a job behind.
struct Stopped {
  Fiber& fiber;
  std::vector<std::string> runs;
  ~Stopped() {
    for (const std::string& id : runs) (void)fiber.Run({"stop", id});
    for (const std::string& id : runs)
      CHECK_MESSAGE(eventually([&] { return LiveJobs(id) == 0; }, 60), "run " << id << " left jobs");
  }
};

}  // namespace

TEST_CASE("three runs of one user share squeue, at most one a second; each sees its jobs wait and end; a master "
          "killed in squeue is taken over") {
  Fiber fiber;
  fiber::testing::TempDir bin;
  const std::string calls = bin.path() + "/calls", slow = bin.path() + "/slow", holder = bin.path() + "/holder";
  // While slow exists, the master in squeue holds it 5 s and says so.
  const std::string wrapper = bin.write(
      "squeue", "#!/bin/sh\ncase \"$*\" in *--name=*) exec /usr/bin/squeue \"$@\";; esac\n"
                "echo \"$(date +%s.%N) $PPID\" >> '" + calls + "'\n"
                "[ -e '" + slow + "' ] && { echo $PPID > '" + holder + "'; sleep 5; }\n"
                "exec /usr/bin/squeue \"$@\"\n");
  ::chmod(wrapper.c_str(), 0755);
  fiber.env["PATH"] = bin.path() + ":" + std::getenv("PATH");

  Stopped stopped{fiber, {}};
  std::vector<std::string>& runs = stopped.runs;
  runs.push_back(DetachedHoldPool(fiber));
  REQUIRE(eventually([&] { return fiber.PsOf(runs[0])["workers_ready"] == 1; }, 120));
  runs.push_back(DetachedHoldPool(fiber));
  runs.push_back(DetachedHoldPool(fiber));
  // Each waiting run's master hears why (Resources, or Priority behind the
  // other) from the shared squeue.
  for (int i : {1, 2})
    CHECK(eventually([&] { return MasterLog(fiber, runs[i]).find("waits in Slurm's queue: ") != std::string::npos; }, 60));

  // A master killed while it runs squeue for all (holding the lock).
  { std::ofstream(slow.c_str()); }
  REQUIRE(eventually([&] { return ::access(holder.c_str(), F_OK) == 0; }, 30));
  ::unlink(slow.c_str());
  long holder_pid = 0;
  std::ifstream(holder.c_str()) >> holder_pid;
  std::string killed;
  for (const std::string& id : runs)
    if (fiber.Record(id)["master_pid"].get<long>() == holder_pid) killed = id;
  REQUIRE_MESSAGE(!killed.empty(), "squeue run by pid " << holder_pid << ", no run's master");
  fiber.KillRun(killed);
  const std::size_t before = Calls(calls).size();

  // A waiting run's job cancelled: only squeue can tell its master, now
  // through another master's squeue.
  std::string waiting;
  for (int i : {1, 2})
    if (runs[i] != killed) waiting = runs[i];
  std::string job;
  for (const auto& j : JobsOf(waiting))
    if (j.state == "PENDING") job = j.job;
  REQUIRE_MESSAGE(!job.empty(), "run " << waiting << " has no pending job");
  (void)fiber::testing::Slurm({"scancel", job});
  // (Slurm then lists a one-task array's cancelled task as its array job:
  // the master says its job is no longer listed.)
  CHECK(eventually([&] { return MasterLog(fiber, waiting).find("worker w0 lost: ") != std::string::npos; }, 60));
  std::set<long> after;
  const std::vector<Call> all = Calls(calls);
  for (std::size_t i = before; i < all.size(); ++i) after.insert(all[i].pid);
  CHECK(!after.empty());
  CHECK(after.count(holder_pid) == 0);

  // At most one a second across the three, from the first to the last (a
  // second of slack: the wrapper notes a call after squeue's start is fixed).
  REQUIRE(all.size() >= 2);
  CHECK_MESSAGE(all.size() <= all.back().at - all.front().at + 2, all.size() << " squeues in "
                                                                             << all.back().at - all.front().at << " s");

}
