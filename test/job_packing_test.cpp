// Several workers per pod, Slurm job or container: how a pool's workers are
// packed into jobs and what each job asks for, and how the pool sees each
// worker end on its own over the engine's backend, which sees jobs.
#include <doctest/doctest.h>

#include <algorithm>
#include <memory>

#include "backend/job_packing.hpp"
#include "support/scripted_backend.hpp"

namespace {

using fiber::backend::Exit;
using fiber::backend::JobLaunch;
using fiber::backend::Launch;
using fiber::backend::PackedBackend;
using fiber::backend::PackIntoJobs;
using fiber::testing::ScriptedBackend;

std::vector<Launch> Workers(int first, int count) {
  std::vector<Launch> launches;
  for (int i = 0; i < count; ++i) {
    Launch launch;
    launch.bootstrap.worker_id = "w" + std::to_string(first + i);
    launch.resources = {0.5, 100, 1};
    launches.push_back(launch);
  }
  return launches;
}

std::vector<std::size_t> Sizes(const std::vector<std::vector<Launch>>& jobs) {
  std::vector<std::size_t> sizes;
  for (const auto& job : jobs) sizes.push_back(job.size());
  return sizes;
}

std::vector<std::string> Ids(const std::vector<Exit>& exits) { return fiber::testing::IdsOf(exits); }

}  // namespace

TEST_CASE("a pool of 10 at 4 per job makes jobs of 4, 4 and 2, each named by its first worker") {
  const auto jobs = PackIntoJobs(Workers(0, 10), 4);
  CHECK(Sizes(jobs) == std::vector<std::size_t>{4, 4, 2});
  CHECK(jobs[1].front().bootstrap.worker_id == "w4");
  CHECK(jobs[2].front().bootstrap.worker_id == "w8");
  CHECK(Sizes(PackIntoJobs(Workers(3, 40), 10)) == std::vector<std::size_t>{10, 10, 10, 10});
  CHECK(Sizes(PackIntoJobs(Workers(0, 3), 1)) == std::vector<std::size_t>{1, 1, 1});
}

TEST_CASE("workers whose numbers do not follow on are in jobs of their own") {
  std::vector<Launch> launches = Workers(0, 2);
  for (const Launch& l : Workers(7, 2)) launches.push_back(l);
  Launch odd;
  odd.bootstrap.worker_id = "custom";
  launches.push_back(odd);
  CHECK(Sizes(PackIntoJobs(launches, 8)) == std::vector<std::size_t>{2, 2, 1});
}

TEST_CASE("a job asks for its workers' resources times their number, and says how many it holds") {
  const Launch job = JobLaunch(PackIntoJobs(Workers(4, 3), 3).front());
  CHECK(job.bootstrap.worker_id == "w4");
  CHECK(job.bootstrap.job_workers == 3);
  CHECK(job.resources.cpu == doctest::Approx(1.5));
  CHECK(job.resources.memory_mb == 300);
  CHECK(job.resources.gpu == 3);
  // The worker learns it from its environment, and reads it back the same.
  const auto env = fiber::worker::ToEnvironment(job.bootstrap);
  CHECK(env.at(fiber::config::kJobWorkersVariable) == "3");
  CHECK(fiber::worker::ToEnvironment(Workers(0, 1).front().bootstrap).count(fiber::config::kJobWorkersVariable) == 0);
}

TEST_CASE("a lost job loses each of its workers once; a worker killed alone ends alone, the last takes the job") {
  auto state = std::make_shared<ScriptedBackend::State>();
  PackedBackend packed(std::make_unique<ScriptedBackend>(state), 4);
  std::string err;
  REQUIRE(packed.StartMany(Workers(0, 10), &err));
  // One launch per job, jobs of one size together.
  REQUIRE(state->launches.size() == 3);
  CHECK(state->launches[0].bootstrap.worker_id == "w0");
  CHECK(state->launches[1].bootstrap.worker_id == "w4");
  CHECK(state->launches[2].bootstrap.job_workers == 2);
  CHECK(packed.MaxStarting() == 64 * 4);

  // The job of w4..w7 lost: each of its workers reported once.
  ScriptedBackend::Crash(*state, "w4", "its pod was deleted");
  const auto lost = packed.Poll();
  CHECK(Ids(lost) == std::vector<std::string>{"w4", "w5", "w6", "w7"});
  CHECK(lost[0].cause.text == "its job w4 ended: its pod was deleted");
  CHECK(packed.Poll().empty());

  // Killing w1 leaves w0's job running; killing its last worker ends it.
  packed.Kill("w1");
  CHECK(state->killed.empty());
  CHECK(Ids(packed.Poll()) == std::vector<std::string>{"w1"});
  packed.Kill("w0");
  packed.Kill("w2");
  CHECK(state->killed.empty());
  packed.Kill("w3");
  CHECK(state->killed == std::vector<std::string>{"w0"});
  const auto ended = packed.Poll();
  CHECK(Ids(ended) == std::vector<std::string>{"w0", "w2", "w3"});
  // A worker ended already is not reported again with its job.
  packed.Kill("w1");
  CHECK(state->killed.size() == 1);
}
