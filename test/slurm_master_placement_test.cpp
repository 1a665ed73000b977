// SlurmMasterPlacement: the program submitted as its run's master's job,
// followed by squeue to its end, and that job found again by ps and stop.
// Slurm's commands here are scripts on PATH that answer as the real ones
// do (the Slurm suite drives the real ones).
#include <doctest/doctest.h>

#include <fstream>

#include "backend/slurm/slurm_master_placement.hpp"
#include "runs/run_dir.hpp"
#include "support/fake_command.hpp"
#include "support/temp_dir.hpp"

using fiber::ExitStatus;
using fiber::backend::MasterLaunch;
using fiber::backend::MasterState;
using fiber::backend::RunPlace;
using fiber::backend::SlurmMasterPlacement;
using fiber::testing::FakeCommand;

namespace {

MasterLaunch Launch(const std::string& run_dir) {
  MasterLaunch launch;
  launch.resolved.sources["listen_host"] = "default";
  launch.run_id = "r1";
  launch.run_dir = run_dir;
  launch.command = {"/bin/prog", "it's"};
  launch.program_env = {"FIBER_ONLY_HERE=1"};
  return launch;
}

}  // namespace

TEST_CASE("the master's job runs the program where it is, on its node's address, with what fiber run set") {
  const std::string script = fiber::backend::MasterScript(Launch("/runs/r1"));
  CHECK(script.find("export FIBER_ONLY_HERE='1'\n") != std::string::npos);
  CHECK(script.find("export FIBER_MASTER=local\n") != std::string::npos);
  CHECK(script.find("hostname -I") != std::string::npos);
  CHECK(script.find("\nexec '/bin/prog' 'it'\\''s'\n") != std::string::npos);
  // A listen_host the user set is the master's, not its node's first address.
  MasterLaunch set = Launch("/runs/r1");
  set.resolved.sources["listen_host"] = "--listen-host";
  CHECK(fiber::backend::MasterScript(set).find("hostname -I") == std::string::npos);
}

TEST_CASE("the master's job is followed to its end: its output is the run's master log, its exit status the program's") {
  const fiber::testing::TempDir dir;
  const FakeCommand sbatch("sbatch", "42\n");
  const FakeCommand squeue("squeue", "42|42|N/A|FAILED|NonZeroExitCode|768||fiber.run=r1 fiber.role=master|\n");
  std::string err;
  const auto master = SlurmMasterPlacement().Start(Launch(dir.path()), &err);
  REQUIRE_MESSAGE(master, err);
  CHECK(master->words().started == "the master runs as Slurm job 42");
  CHECK(master->engine_id() == "42");
  CHECK(master->engine_writes_master_log());
  std::ofstream(fiber::runs::MasterLogPath(dir.path())) << "result 10\n";
  CHECK(master->TakeOutput() == "result 10\n");
  CHECK(master->TakeOutput().empty());
  const MasterState state = master->Wait(std::chrono::milliseconds(100));
  CHECK(state.phase == MasterState::Phase::kEnded);
  REQUIRE(state.exit);
  CHECK(state.exit->code() == 3);
}

TEST_CASE("a master's job Slurm will never run ends the run with Slurm's reason") {
  const fiber::testing::TempDir dir;
  const FakeCommand sbatch("sbatch", "42\n");
  const FakeCommand scancel("scancel", "");
  const FakeCommand squeue("squeue", "42|42|N/A|PENDING|PartitionConfig|0||fiber.run=r1 fiber.role=master|\n");
  std::string err;
  const auto master = SlurmMasterPlacement().Start(Launch(dir.path()), &err);
  REQUIRE_MESSAGE(master, err);
  const MasterState state = master->Wait(std::chrono::milliseconds(100));
  CHECK(state.phase == MasterState::Phase::kEnded);
  CHECK_FALSE(state.exit);
  CHECK(state.error.find("Slurm will never run the master's job 42 as asked: PartitionConfig") == 0);
}

TEST_CASE("a master in the cluster is the job fiber run recorded, and says how it ended") {
  const FakeCommand squeue("squeue",
                           "8|8|N/A|FAILED|NonZeroExitCode|768||fiber.run=r1 fiber.role=master|\n"
                           "9|9|N/A|RUNNING|None|0|localhost|fiber.run=r1 fiber.role=master|\n");
  RunPlace run;
  run.id = "r1";
  run.backend = "slurm";
  run.master_job = "8";
  bool runs = true;
  std::optional<ExitStatus> exit;
  std::string err;
  REQUIRE(SlurmMasterPlacement().State(run, &runs, &exit, &err));
  CHECK_FALSE(runs);
  REQUIRE(exit);
  CHECK(exit->code() == 3);
  // No job recorded: nothing to stop, said so.
  run.master_job.clear();
  CHECK_FALSE(SlurmMasterPlacement().Stop(run, false, &err));
  CHECK(err == "run r1 has no master in a cluster to stop");
}
