// What Slurm's answers mean to the master: squeue lines (the shape squeue
// 22.05 prints for --noheader --array --states=all --Format=kSqueueFields,
// taken from the test Slurm of test/slurm), sbatch --parsable's job id,
// and which reasons for waiting are hopeless.
#include <doctest/doctest.h>

#include "backend/slurm/job_state.hpp"

using fiber::ExitStatus;
using fiber::backend::JobState;
using fiber::backend::ParseSbatchJobId;
using fiber::backend::ParseSqueue;

namespace {

JobState One(const std::string& line) {
  const auto jobs = ParseSqueue(line + "\n");
  REQUIRE(jobs.size() == 1);
  return jobs[0];
}

}  // namespace

TEST_CASE("a worker job's array index and comment name its worker") {
  CHECK(fiber::backend::JobComment("ab12", 1000) == "fiber.run=ab12 fiber.first=1000");
  CHECK(fiber::backend::JobName("ab12") == "fiber-ab12");
  const JobState s = One("5_3|5|3|RUNNING|None|0|localhost|fiber.run=ab12 fiber.first=1000|");
  CHECK(s.job == "5_3");
  CHECK(s.worker_id == "w1003");
  CHECK(s.state == "RUNNING");
  CHECK(s.node == "localhost");  // where it runs
  CHECK_FALSE(s.ended);
  CHECK(s.waiting.empty());
}

TEST_CASE("a job of several workers is named by its first: index times the stride") {
  CHECK(fiber::backend::JobComment("ab12", 1000, 32) == "fiber.run=ab12 fiber.first=1000 fiber.stride=32");
  CHECK(One("5_3|5|3|RUNNING|None|0|localhost|fiber.run=ab12 fiber.first=1000 fiber.stride=32|").worker_id == "w1096");
  CHECK(One("5_3|5|3|RUNNING|None|0|localhost|fiber.run=ab12 fiber.first=1000 fiber.stride=x|").worker_id.empty());
}

TEST_CASE("a job that is not fiber's has no worker") {
  CHECK(One("7|7|N/A|RUNNING|None|0|localhost|(null)|").worker_id.empty());
}

TEST_CASE("an ended job's exit code is a wait status: exit status or signal") {
  const JobState failed = One("2_0|2|0|FAILED|NonZeroExitCode|768||fiber.run=r fiber.first=0|");
  CHECK(failed.ended);
  CHECK(failed.status == ExitStatus::Exited(3));
  CHECK(failed.end.text == "exit status 3");
  const JobState killed = One("3_0|3|0|FAILED|JobLaunchFailure|9||fiber.run=r fiber.first=0|");
  CHECK(killed.status == ExitStatus::Killed(9));
  CHECK(killed.end.text == "killed by SIGKILL");
  const JobState done = One("4_0|4|0|COMPLETED|None|0||fiber.run=r fiber.first=0|");
  CHECK(done.ended);
  CHECK(done.status == ExitStatus::Exited(0));
  CHECK(done.end.text == "exit status 0");
}

TEST_CASE("cancelled, timed out, preempted and out-of-memory jobs say so, in words and as a word") {
  using fiber::backend::EndCause;
  namespace word = fiber::backend::end_word;
  CHECK(One("1_0|1|0|CANCELLED|None|15||fiber.run=r fiber.first=0|").end ==
        EndCause{word::kCancelled, "its Slurm job was cancelled"});
  CHECK(One("1_0|1|0|TIMEOUT|TimeLimit|0||fiber.run=r fiber.first=0|").end ==
        fiber::backend::EngineOnly(fiber::backend::job_end_word::kTimeLimit, "its Slurm job reached its time limit"));
  CHECK(One("1_0|1|0|PREEMPTED|None|0||fiber.run=r fiber.first=0|").end ==
        fiber::backend::EngineOnly(word::kPreempted, "its Slurm job was preempted"));
  CHECK(One("1_0|1|0|NODE_FAIL|None|0||fiber.run=r fiber.first=0|").end == fiber::backend::EngineOnly(word::kNodeFailed, "its node failed"));
  // The kernel's OOM killer in the job's cgroup (task/cgroup): squeue's
  // state, exit code 0:125 as a wait status.
  CHECK(One("1_0|1|0|OUT_OF_MEMORY|OutOfMemory|32000||fiber.run=r fiber.first=0|").end ==
        fiber::backend::EngineOnly(word::kOom, "killed for using more than its memory limit (OOM)"));
  CHECK(One("2_0|2|0|FAILED|NonZeroExitCode|11||fiber.run=r fiber.first=0|").end ==
        EndCause{word::kSignal, "killed by SIGSEGV"});
  CHECK(One("2_0|2|0|COMPLETED|None|0||fiber.run=r fiber.first=0|").end.word == std::string(word::kExited));
  CHECK(One("2_0|2|0|SPECIAL_EXIT|None|0||fiber.run=r fiber.first=0|").end.word == std::string(word::kUnknown));
}

TEST_CASE("a job ended by Slurm is told apart from one whose program ended") {
  for (const char* state : {"CANCELLED", "TIMEOUT", "PREEMPTED", "NODE_FAIL", "OUT_OF_MEMORY"})
    CHECK_MESSAGE(One(std::string("1_0|1|0|") + state + "|None|0||fiber.run=r fiber.first=0|").ended_by_slurm, state);
  CHECK_FALSE(One("1_0|1|0|COMPLETED|None|0||fiber.run=r fiber.first=0|").ended_by_slurm);
  CHECK_FALSE(One("1_0|1|0|FAILED|NonZeroExitCode|256||fiber.run=r fiber.first=0|").ended_by_slurm);
  CHECK_FALSE(One("1_0|1|0|RUNNING|None|0|localhost|fiber.run=r fiber.first=0|").ended_by_slurm);
}

TEST_CASE("a pending job says why it waits, in Slurm's reason code and plain words") {
  const JobState s = One("4_5|4|5|PENDING|Resources|0||fiber.run=r fiber.first=0|");
  CHECK_FALSE(s.ended);
  CHECK_FALSE(s.hopeless);
  CHECK(s.waiting.rfind("Resources (", 0) == 0);
  CHECK(One("4_5|4|5|PENDING|None|0||fiber.run=r fiber.first=0|").waiting.empty());
  CHECK(One("4_5|4|5|PENDING|SomeNewReason|0||fiber.run=r fiber.first=0|").waiting == "SomeNewReason");
}

TEST_CASE("a job Slurm will never run as asked has ended, with the reason") {
  const JobState s = One("7_0|7|0|PENDING|PartitionConfig|0||fiber.run=r fiber.first=0|");
  CHECK(s.hopeless);
  CHECK(s.ended);
  CHECK(s.end.text.find("PartitionConfig") != std::string::npos);
  CHECK(s.end.word == std::string(fiber::backend::end_word::kCannotStart));
  CHECK(fiber::backend::HopelessReason("QOSMaxCpuPerJobLimit"));
  CHECK(fiber::backend::HopelessReason("BadConstraints"));
  CHECK_FALSE(fiber::backend::HopelessReason("Priority"));
  CHECK_FALSE(fiber::backend::HopelessReason("QOSMaxJobsPerUserLimit"));
  CHECK_FALSE(fiber::backend::HopelessReason("PerJobLimit"));
}

TEST_CASE("a '|' in a comment stays in the comment; short or empty lines are skipped") {
  const auto jobs = ParseSqueue("1_2|1|2|RUNNING|None|0|localhost|fiber.run=r fiber.first=4 a|b|\n"
                                "garbage\n\n||||||||\n");
  REQUIRE(jobs.size() == 1);
  CHECK(jobs[0].worker_id == "w6");
}

TEST_CASE("sbatch --parsable's job id, with or without a cluster") {
  std::string id;
  CHECK(ParseSbatchJobId("12\n", &id));
  CHECK(id == "12");
  CHECK(ParseSbatchJobId("13;cluster\n", &id));
  CHECK(id == "13");
  CHECK_FALSE(ParseSbatchJobId("", &id));
  CHECK_FALSE(ParseSbatchJobId("Submitted batch job 12\n", &id));
}
