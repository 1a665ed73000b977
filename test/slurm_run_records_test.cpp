// SlurmRunRecords: a Slurm run's workers and master as squeue lists them,
// in the words fiber ps shows, and the leftovers fiber stop removes.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "backend/labels.hpp"
#include "backend/slurm/held_workers.hpp"
#include "backend/slurm/run_jobs.hpp"
#include "backend/slurm/slurm_run_records.hpp"
#include "runs/run_dir.hpp"
#include "support/fake_command.hpp"
#include "support/temp_dir.hpp"

using fiber::backend::RunPlace;
using fiber::backend::SlurmRunRecords;
using fiber::backend::WorkerRecord;

namespace {

// squeue, answering as the real one does.
class FakeSqueue : public fiber::testing::FakeCommand {
 public:
  explicit FakeSqueue(const std::string& answer, int status = 0) : FakeCommand("squeue", answer, status) {}
};

RunPlace Place(const std::string& id) {
  RunPlace run;
  run.id = id;
  run.backend = "slurm";
  run.engine_env = std::map<std::string, std::string>{{"SLURM_CONF", "/etc/x/slurm.conf"}};
  return run;
}

}  // namespace

TEST_CASE("a run's jobs are its workers by their comment, with why they wait; ended ones are history") {
  const FakeSqueue squeue(
      "5_0|5|0|PENDING|Resources|0||fiber.run=r1 fiber.first=3|\n"
      "5_1|5|1|RUNNING|None|0|localhost|fiber.run=r1 fiber.first=3|\n"
      "6_0|6|0|COMPLETED|None|0||fiber.run=r1 fiber.first=5|\n"
      "7_0|7|0|PENDING|PartitionConfig|0||fiber.run=r1 fiber.first=6|\n"
      "8|8|N/A|RUNNING|None|0|localhost|fiber.run=r1 fiber.role=master|\n"
      "9_0|9|0|RUNNING|None|0|localhost|fiber.run=r2 fiber.first=0|\n");
  const auto listed = SlurmRunRecords().List({Place("r1"), Place("r2")});
  CHECK(listed.errors.empty());
  REQUIRE(listed.workers.count("r1"));
  const std::vector<WorkerRecord>& r1 = listed.workers.at("r1");
  REQUIRE(r1.size() == 4);
  CHECK(r1[0].worker_id == "w3");
  CHECK(r1[0].where == "5_0");
  CHECK(r1[0].phase == WorkerRecord::Phase::kPending);
  CHECK(r1[0].engine_state == "PENDING");
  CHECK(r1[0].waiting.find("Resources") == 0);
  CHECK(r1[0].node.empty());
  CHECK(r1[1].worker_id == "w4");
  CHECK(r1[1].phase == WorkerRecord::Phase::kRunning);
  CHECK(r1[1].node == "localhost");
  CHECK(r1[1].waiting.empty());
  // Slurm will never run it as asked: it stays in the list, ended.
  CHECK(r1[2].worker_id == "w6");
  CHECK(r1[2].phase == WorkerRecord::Phase::kEnded);
  CHECK(r1[3].worker_id == fiber::backend::kMasterRole);
  REQUIRE(listed.workers.count("r2"));
  CHECK(listed.workers.at("r2").size() == 1);
}

TEST_CASE("when squeue fails, each run says which Slurm cluster could not be asked") {
  const FakeSqueue squeue("slurm_load_jobs error: Unable to contact slurm controller\n", 1);
  const auto listed = SlurmRunRecords().List({Place("r1")});
  CHECK(listed.workers.empty());
  REQUIRE(listed.errors.count("r1"));
  CHECK(listed.errors.at("r1").find("the Slurm cluster of SLURM_CONF=/etc/x/slurm.conf: squeue failed (exit status 1)") == 0);
  RunPlace here = Place("r1");
  here.engine_env.reset();
  CHECK(fiber::backend::SlurmClusterOf(here) == "this machine's Slurm cluster");
}

TEST_CASE("keys no worker read are what an ended Slurm run left besides its jobs") {
  const fiber::testing::TempDir dir;
  RunPlace run = Place("r1");
  run.dir = dir.path();
  std::vector<std::string> left;
  std::string err;
  REQUIRE(SlurmRunRecords().Leftovers(run, &left, &err));
  CHECK(left.empty());
  std::filesystem::create_directories(fiber::runs::SlurmDir(run.dir));
  for (const char* w : {"w1", "w2"}) std::ofstream(fiber::backend::KeyFile(fiber::runs::SlurmDir(run.dir), w)) << "k";
  REQUIRE(SlurmRunRecords().Leftovers(run, &left, &err));
  CHECK(left == std::vector<std::string>{"2 key files"});
}

TEST_CASE("workers held back by their master until Slurm takes more jobs are listed as waiting, with why") {
  const FakeSqueue squeue("5_0|5|0|RUNNING|None|0|localhost|fiber.run=r1 fiber.first=0|\n");
  const fiber::testing::TempDir dir;
  RunPlace run = Place("r1");
  run.dir = dir.path();
  const std::string slurm_dir = fiber::runs::SlurmDir(run.dir);
  std::filesystem::create_directories(slurm_dir);
  const std::string why = "sbatch failed: sbatch: error: Slurm temporarily unable to accept job, sleeping and retrying";
  fiber::backend::WriteHeldWorkers(slurm_dir, {why, {"w1", "w2"}});
  auto listed = SlurmRunRecords().List({run});
  REQUIRE(listed.workers.count("r1"));
  const std::vector<WorkerRecord>& r1 = listed.workers.at("r1");
  REQUIRE(r1.size() == 3);
  CHECK(r1[1].worker_id == "w1");
  CHECK(r1[1].where.empty());
  CHECK(r1[1].phase == WorkerRecord::Phase::kPending);
  CHECK(r1[1].engine_state == "NOT_SUBMITTED");
  CHECK(r1[1].waiting == why);
  CHECK(r1[2].worker_id == "w2");
  // None held: the file goes, and so do they.
  fiber::backend::WriteHeldWorkers(slurm_dir, {why, {}});
  CHECK_FALSE(std::filesystem::exists(fiber::backend::HeldWorkersFile(slurm_dir)));
  listed = SlurmRunRecords().List({run});
  CHECK(listed.workers.at("r1").size() == 1);
}

TEST_CASE("the workers of many runs on one Slurm cluster come from one squeue") {
  const fiber::testing::FakeCommand squeue(
      "squeue", fiber::testing::FakeCommand::Script{"echo x >> \"$dir/runs\"\n"
                                                    "echo '5_0|5|0|RUNNING|None|0|localhost|fiber.run=r1 fiber.first=0|'\n"
                                                    "echo '6_0|6|0|RUNNING|None|0|localhost|fiber.run=r7 fiber.first=0|'\n"});
  std::vector<RunPlace> runs;
  for (int i = 0; i < 8; ++i) runs.push_back(Place("r" + std::to_string(i)));
  const auto listed = SlurmRunRecords().List(runs);
  CHECK(squeue.runs() == 1);
  CHECK(listed.workers.at("r1").size() == 1);
  CHECK(listed.workers.at("r7").size() == 1);
}
