// The Slurm of test/slurm as tests find it: the values its slurm.env holds
// (test/slurm/up writes it; FIBER_SLURM_DIR moves it), SLURM_CONF set in
// this process so that Slurm's commands (and the fiber commands a test
// starts) reach it, a run's jobs as squeue lists them, and the check that a
// run left none. For the tests of the suite "slurm".
#pragma once

#include <doctest/doctest.h>
#include <stdlib.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "backend/slurm/run_jobs.hpp"
#include "backend/slurm/slurm_command.hpp"
#include "support/fiber_command.hpp"

namespace fiber::testing {

/// slurm.env's values. The first call sets SLURM_CONF from it.
inline const std::map<std::string, std::string>& SlurmValues() {
  static const std::map<std::string, std::string> env = [] {
    const char* dir = std::getenv("FIBER_SLURM_DIR");
    std::ifstream in(std::string(dir && *dir ? dir : "/tmp/fiber-slurm") + "/slurm.env");
    std::map<std::string, std::string> values;
    for (std::string line; std::getline(in, line);)
      if (const auto eq = line.find('='); eq != std::string::npos)
        values[line.substr(0, eq)] = line.substr(eq + 1);
    if (values.count("SLURM_CONF")) ::setenv("SLURM_CONF", values["SLURM_CONF"].c_str(), 1);
    return values;
  }();
  return env;
}

/// slurm.env's value of key; fails the test when it has none.
inline std::string SlurmValue(const char* key) {
  const auto& env = SlurmValues();
  const auto it = env.find(key);
  REQUIRE_MESSAGE(it != env.end(), "slurm.env has no " << key << " (start Slurm with test/slurm/up)");
  return it->second;
}

/// The run's jobs, ended ones too, as squeue lists them.
inline std::vector<backend::JobState> JobsOf(const std::string& run_id) {
  (void)SlurmValue("SLURM_CONF");
  std::vector<backend::JobState> jobs;
  std::string err;
  REQUIRE_MESSAGE(backend::ListRunJobs(run_id, &jobs, &err), err);
  return jobs;
}

/// How many of the run's jobs are in state (RUNNING, PENDING, ...).
inline int JobsIn(const std::string& run_id, const std::string& state) {
  int n = 0;
  for (const auto& job : JobsOf(run_id)) n += job.state == state;
  return n;
}

/// How many of the run's jobs have not ended: queued or running.
inline int LiveJobs(const std::string& run_id) {
  int n = 0;
  for (const auto& job : JobsOf(run_id)) n += !job.ended || job.hopeless;
  return n;
}

/// A Slurm command's output; a failure fails the test with its error.
inline std::string Slurm(const std::vector<std::string>& argv) {
  (void)SlurmValue("SLURM_CONF");
  std::string out, err;
  CHECK_MESSAGE(backend::RunSlurm(argv, "", &out, &err), err);
  return out;
}

/// Checks, when a test ends, that its run (the last one ps lists, unless
/// named) left no job queued or running; stops it if it did.
struct NothingLeft {
  Fiber& fiber;
  std::string run_id;
  ~NothingLeft() {
    if (run_id.empty()) {
      const nlohmann::json runs = fiber.Ps();
      if (!runs.empty()) run_id = runs.back()["id"];
    }
    if (run_id.empty()) return;
    const bool gone = eventually([&] { return LiveJobs(run_id) == 0; }, 60);
    CHECK_MESSAGE(gone, "run " << run_id << " left jobs in Slurm's queue");
    if (!gone) (void)fiber.Run({"stop", "--force", run_id});
  }
};

}  // namespace fiber::testing
