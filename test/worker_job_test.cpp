// WorkerJob (backend/slurm/worker_job.hpp) without Slurm: a worker's key
// file, the worker's log linked to its job's output, and how a listing of
// the run's jobs says the job stands.
#include "backend/slurm/worker_job.hpp"

#include <doctest/doctest.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "backend/slurm/run_jobs.hpp"
#include "support/temp_dir.hpp"

using fiber::backend::JobListing;
using fiber::backend::JobState;
using fiber::backend::KeyFile;
using fiber::backend::Launch;
using fiber::backend::WorkerJob;

namespace {

Launch LaunchOf(const std::string& worker_id, const std::string& secret) {
  Launch launch;
  launch.bootstrap.worker_id = worker_id;
  launch.bootstrap.client_secret = secret;
  return launch;
}

std::string Text(const std::string& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), {}};
}

}  // namespace

TEST_CASE("a worker's key waits in a file only its owner reads; when one cannot be written, none is left") {
  fiber::testing::TempDir dir;
  std::string err;
  REQUIRE(fiber::backend::WriteKeyFiles(dir.path(), {LaunchOf("w0", "zero"), LaunchOf("w1", "one")}, &err));
  CHECK(Text(KeyFile(dir.path(), "w1")) == "one\n");
  struct stat st{};
  REQUIRE(::stat(KeyFile(dir.path(), "w0").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);

  std::filesystem::create_directory(KeyFile(dir.path(), "w3"));  // no file can be made there
  CHECK_FALSE(fiber::backend::WriteKeyFiles(dir.path(), {LaunchOf("w2", "two"), LaunchOf("w3", "three")}, &err));
  CHECK(err == "cannot write " + KeyFile(dir.path(), "w3"));
  CHECK_FALSE(std::filesystem::exists(KeyFile(dir.path(), "w2")));
}

TEST_CASE("a submitted job's output is the worker's log; forgetting the job removes its key and keeps its output") {
  fiber::testing::TempDir dir;
  std::string err;
  REQUIRE(fiber::backend::WriteKeyFiles(dir.path(), {LaunchOf("w4", "four")}, &err));
  WorkerJob job{"", KeyFile(dir.path(), "w4"), "", dir.path() + "/w4.log", "1 0 0", {}};
  job.Submitted("w4", dir.path(), "12", 3, {});
  CHECK(job.job == "12_3");
  CHECK(std::filesystem::read_symlink(job.log_file) == job.output);
  std::ofstream(job.output) << "hello\n";
  CHECK(Text(job.log_file) == "hello\n");
  job.Forget("w4");
  CHECK_FALSE(std::filesystem::exists(job.key_file));
  CHECK(Text(job.output) == "hello\n");
}

TEST_CASE("a job that a listing made after its submission lacks has ended, how unknown; an earlier listing says nothing") {
  const auto submitted = fiber::backend::JobWatch::Clock::now();
  WorkerJob job{"12_3", "", "", "", "1 0 0", submitted};
  JobListing listing;
  listing.taken = submitted - std::chrono::seconds(1);
  CHECK_FALSE(job.StateIn(listing).ended);
  listing.taken = submitted + std::chrono::seconds(1);
  const JobState gone = job.StateIn(listing);
  CHECK(gone.ended);
  CHECK(gone.end.text == "Slurm no longer lists its job 12_3");
  listing.jobs["12_3"].state = "RUNNING";
  CHECK(job.StateIn(listing).state == "RUNNING");
  CHECK_FALSE(job.StateIn(listing).ended);
}
