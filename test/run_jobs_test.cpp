// How a pool's workers become one sbatch: the job array's indexes, the
// settings and resources as sbatch options, and the batch script, which
// sets each worker's variables but never holds the run's key.
#include <doctest/doctest.h>

#include <algorithm>

#include "backend/slurm/run_jobs.hpp"
#include "worker/bootstrap.hpp"

using fiber::backend::ArrayIndexes;
using fiber::backend::SbatchArguments;
using fiber::backend::WorkerArray;
using fiber::backend::WorkerScript;

namespace {

WorkerArray Array() {
  WorkerArray a;
  a.run_id = "ab12";
  a.first = 1000;
  a.indexes = {0, 1, 2};
  a.command = {"/shared/bin/train", "--lr", "it's 0.1"};
  fiber::worker::Bootstrap b;
  b.run_id = "ab12";
  b.master = "tcp://10.0.0.1:5000";
  b.worker_id = "w1000";
  b.client_secret = std::string(40, 'K');
  a.env = fiber::worker::ToEnvironmentWithSecretFile(b, "");
  a.key_dir = "/home/u/.local/state/fiber/runs/ab12/slurm";
  a.output = a.key_dir + "/%A_%a.out";
  return a;
}

bool Has(const std::vector<std::string>& args, const std::string& arg) {
  return std::find(args.begin(), args.end(), arg) != args.end();
}

}  // namespace

TEST_CASE("array indexes are written as ranges") {
  CHECK(ArrayIndexes({0}) == "0");
  CHECK(ArrayIndexes({0, 1, 2, 3}) == "0-3");
  CHECK(ArrayIndexes({0, 1, 3, 5, 6}) == "0-1,3,5-6");
}

TEST_CASE("the script sets each worker's id and key file from its array index and holds no key") {
  const std::string script = WorkerScript(Array());
  CHECK(script.rfind("#!/bin/sh\n", 0) == 0);
  CHECK(script.find("FIBER_WORKER_ID=w$((1000 + SLURM_ARRAY_TASK_ID))") != std::string::npos);
  CHECK(script.find("FIBER_CLIENT_KEY_FILE='/home/u/.local/state/fiber/runs/ab12/slurm/'\"$FIBER_WORKER_ID.key\"") !=
        std::string::npos);
  CHECK(script.find("export FIBER_MASTER_ENDPOINT='tcp://10.0.0.1:5000'") != std::string::npos);
  CHECK(script.find("exec '/shared/bin/train' '--lr' 'it'\\''s 0.1'\n") != std::string::npos);
  CHECK(script.find(std::string(40, 'K')) == std::string::npos);
  CHECK(script.find("FIBER_CLIENT_KEY=") == std::string::npos);
}

TEST_CASE("jobs of several workers are dense array indexes a stride of workers apart, said in the comment") {
  WorkerArray array = Array();
  array.stride = 32;
  array.indexes = {0, 1, 2};
  CHECK(WorkerScript(array).find("FIBER_WORKER_ID=w$((1000 + SLURM_ARRAY_TASK_ID * 32))") != std::string::npos);
  const auto args = SbatchArguments(fiber::config::Settings{}, array);
  CHECK(std::find(args.begin(), args.end(), "--array=0-2") != args.end());
  CHECK(std::find(args.begin(), args.end(), "--comment=fiber.run=ab12 fiber.first=1000 fiber.stride=32") != args.end());
}

TEST_CASE("settings and resources become sbatch options; the user's come first") {
  fiber::config::Settings s;
  s.partition = "gpu";
  s.account = "rl-lab";
  s.qos = "high";
  s.time_limit = "1:00:00";
  s.sbatch_options = "--constraint=avx2  --exclusive";
  s.array_limit = 8;
  WorkerArray a = Array();
  a.resources = {0.5, 2048, 1};
  const std::vector<std::string> args = SbatchArguments(s, a);
  CHECK(args[0] == "sbatch");
  CHECK(args[1] == "--parsable");
  CHECK(args[2] == "--constraint=avx2");
  CHECK(args[3] == "--exclusive");
  for (const char* want : {"--partition=gpu", "--account=rl-lab", "--qos=high", "--time=1:00:00",
                           "--cpus-per-task=1", "--mem=2048M", "--gres=gpu:1", "--job-name=fiber-ab12",
                           "--comment=fiber.run=ab12 fiber.first=1000", "--array=0-2%8",
                           "--output=/home/u/.local/state/fiber/runs/ab12/slurm/%A_%a.out",
                           // fiber replaces lost workers itself: Slurm must not requeue them
                           "--no-requeue"})
    CHECK_MESSAGE(Has(args, want), want);
}

TEST_CASE("nothing set asks for Slurm's defaults") {
  const std::vector<std::string> args = SbatchArguments(fiber::config::Settings{}, Array());
  for (const std::string& arg : args)
    for (const char* absent : {"--partition", "--account", "--qos", "--time", "--cpus-per-task", "--mem", "--gres"})
      CHECK_MESSAGE(arg.rfind(absent, 0) != 0, arg);
  CHECK(Has(args, "--array=0-2"));
}
