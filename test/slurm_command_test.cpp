// Slurm's commands as the backend runs them (backend/slurm/slurm_command.hpp):
// which errors are worth another try, which are a limit to wait out, and the
// tries themselves, against scripts on PATH that answer as sbatch and
// squeue do when the controller is busy.
#include "backend/slurm/slurm_command.hpp"

#include <doctest/doctest.h>

#include <chrono>

#include "support/fake_command.hpp"

using fiber::backend::RunSlurm;
using fiber::backend::SubmitLimitError;
using fiber::backend::TransientSlurmError;

using Script = fiber::testing::FakeCommand;
using Body = fiber::testing::FakeCommand::Script;

TEST_CASE("a busy or unreachable controller is worth another try; a refused job is not") {
  CHECK(TransientSlurmError("sbatch failed (exit status 1): sbatch: error: Batch job submission failed: Socket timed out on send/recv operation"));
  CHECK(TransientSlurmError("squeue failed (exit status 1): slurm_load_jobs error: Unable to contact slurm controller (connect failure)"));
  CHECK(TransientSlurmError("sbatch failed (exit status 1): sbatch: error: Batch job submission failed: Resource temporarily unavailable"));
  CHECK(TransientSlurmError("squeue did not answer within 30 s (is slurmctld reachable?)"));
  CHECK_FALSE(TransientSlurmError("sbatch failed (exit status 1): sbatch: error: Batch job submission failed: Invalid job array specification"));
  CHECK_FALSE(TransientSlurmError("sbatch failed (exit status 1): sbatch: error: Batch job submission failed: Job violates accounting/QOS policy (job submit limit, user's size and/or time limits)"));
}

TEST_CASE("limits on queued jobs are told apart from other refusals") {
  CHECK(SubmitLimitError("sbatch: error: Batch job submission failed: Job violates accounting/QOS policy (job submit limit, user's size and/or time limits)"));
  CHECK(SubmitLimitError("sbatch: error: QOSMaxSubmitJobPerUserLimit"));
  CHECK(SubmitLimitError("sbatch: error: AssocMaxSubmitJobLimit"));
  CHECK(SubmitLimitError("sbatch failed: sbatch: error: Slurm temporarily unable to accept job, sleeping and retrying"));
  CHECK_FALSE(SubmitLimitError("sbatch: error: Batch job submission failed: Requested node configuration is not available"));
  CHECK_FALSE(SubmitLimitError("sbatch: error: Batch job submission failed: Invalid job array specification"));
}

TEST_CASE("a command that times out twice, then answers, is answered after three tries") {
  const Script squeue("squeue", Body{"echo x >> \"$dir/runs\"\n"
                                     "[ \"$(wc -l < \"$dir/runs\")\" -ge 3 ] && { echo listed; exit 0; }\n"
                                     "echo 'slurm_load_jobs error: Socket timed out on send/recv operation' >&2\n"
                                     "exit 1\n"});
  std::string out, err;
  CHECK_MESSAGE(RunSlurm({"squeue"}, "", &out, &err), err);
  CHECK(out == "listed\n");
  CHECK(squeue.runs() == 3);
}

TEST_CASE("a command that keeps timing out fails with its last error once the retry time is out; others at once") {
  const Script squeue("squeue", Body{"echo x >> \"$dir/runs\"\n"
                                     "echo 'slurm_load_jobs error: Socket timed out on send/recv operation' >&2\n"
                                     "exit 1\n"});
  std::string out, err;
  CHECK_FALSE(RunSlurm({"squeue"}, "", &out, &err, {}, std::chrono::milliseconds(3500)));
  CHECK_MESSAGE(err.find("squeue failed (exit status 1): slurm_load_jobs error: Socket timed out") == 0, err);
  // After 1 s, then 2 s: a third wait of 4 s would pass the 3.5 s.
  CHECK(squeue.runs() == 3);
  CHECK_MESSAGE(err.find("(tried 3 times)") != std::string::npos, err);

  const Script scancel("scancel", Body{"echo x >> \"$dir/runs\"\n"
                                       "echo 'scancel: error: Invalid job id specified' >&2; exit 1\n"});
  CHECK_FALSE(RunSlurm({"scancel", "12"}, "", &out, &err));
  CHECK(scancel.runs() == 1);
  CHECK_MESSAGE(err == "scancel failed (exit status 1): scancel: error: Invalid job id specified", err);
}

TEST_CASE("sbatch sleeping and retrying on its own (a full queue) is stopped at once, its words a limit to wait out") {
  const Script sbatch("sbatch", Body{"echo 'sbatch: error: Slurm temporarily unable to accept job, sleeping and "
                                     "retrying' >&2\nexec sleep 600\n"});
  std::string out, err;
  CHECK_FALSE(RunSlurm({"sbatch", "--parsable"}, "#!/bin/sh\n", &out, &err));
  CHECK_MESSAGE(err == "sbatch failed: sbatch: error: Slurm temporarily unable to accept job, sleeping and retrying", err);
  CHECK(SubmitLimitError(err));
}
