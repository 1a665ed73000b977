// The Slurm backend against the real Slurm of test/slurm, driven as a user
// would: the real fiber command with the fiber config test/slurm/up leaves
// (--config FILE --profile test-slurm), its workers as Slurm jobs running
// the program from this filesystem. squeue, run by the test, says what each
// run left: every test checks that its run has no job queued or running.
#include <doctest/doctest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "backend/slurm/slurm_command.hpp"
#include "subprocess.hpp"
#include "support/fiber_command.hpp"
#include "support/loopback_port.hpp"
#include "support/temp_dir.hpp"
#include "support/test_slurm.hpp"
#include "support/watched_run.hpp"
#include "worker/worker_id.hpp"

using fiber::testing::eventually;
using fiber::testing::Fiber;
using fiber::testing::CheckEnd;
using fiber::testing::CheckLossWhileItRuns;
using fiber::testing::JobsIn;
using fiber::testing::JobsOf;
using fiber::testing::LiveJobs;
using fiber::testing::NothingLeft;
using fiber::testing::Slurm;
using fiber::testing::SlowSquaresOutput;
using fiber::testing::SlurmValue;
using nlohmann::json;

namespace {

// fiber run of the test Slurm's profile.
std::vector<std::string> RunArgs(std::vector<std::string> rest) {
  return fiber::testing::ProfileRun(SlurmValue("FIBER_SLURM_FIBER_CONFIG"), "test-slurm", std::move(rest));
}

// fiber run --detach of hold_pool with n workers as Slurm jobs, once all
// are ready; its run id goes to check.
void StartHeld(Fiber& fiber, NothingLeft& check, int n, std::vector<std::string> flags = {}) {
  flags.push_back("--detach");
  flags.push_back(built_program("hold_pool"));
  flags.push_back(std::to_string(n));
  auto [status, out, err] = fiber.Run(RunArgs(flags));
  REQUIRE_MESSAGE(status == 0, err);
  check.run_id = out.substr(0, out.find('\n'));
  REQUIRE(eventually([&] { return fiber.Ps()[0]["workers_ready"] == n; }, 120));
}

// Each of jobs (live) as fiber top's run lists its worker: where it runs
// is its job, on a node of the test Slurm.
void CheckWorkersWhere(const json& run, const std::vector<fiber::backend::JobState>& jobs) {
  CHECK(run["workers_from"] == "master");
  for (const auto& job : jobs) {
    json worker;
    for (const json& w : run["workers"])
      if (w["id"] == job.worker_id) worker = w;
    REQUIRE_MESSAGE(worker.is_object(), job.worker_id << " in " << run.dump());
    CHECK(worker["where"] == job.job);
    CHECK(worker["node"] == job.node);
    CHECK(!job.node.empty());
    CHECK((worker["state"] == "busy" || worker["state"] == "ready"));
  }
}

// fiber run of the test Slurm's profile with these arguments, once n of
// its workers are ready; its run id goes to check.
Child StartReady(Fiber& fiber, NothingLeft& check, std::vector<std::string> args, int n) {
  Child child = fiber.Start(RunArgs(std::move(args)));
  REQUIRE(eventually([&] { return !fiber.Ps().empty(); }, 60));
  check.run_id = fiber.Ps()[0]["id"];
  REQUIRE(eventually([&] { return fiber.Ps()[0]["workers_ready"] == n; }, 180));
  return child;
}

}  // namespace

TEST_CASE("a Pool map whose workers are Slurm jobs gives every result; logs --worker reads a job's output") {
  Fiber fiber;
  NothingLeft check{fiber, ""};
  auto [status, out, err] = fiber.Run(RunArgs({built_program("chatty_pool"), "3"}));
  CHECK_MESSAGE(status == 3, err);
  CHECK(out == "result 10\nresult 20\nresult 30\nresult 40\n");
  const json run = fiber.Ps()[0];
  CHECK(run["backend"] == "slurm");
  check.run_id = run["id"];
  // The pool's two workers were one job array.
  const auto jobs = JobsOf(check.run_id);
  REQUIRE(jobs.size() == 2);
  CHECK(jobs[0].job.substr(0, jobs[0].job.find('_')) == jobs[1].job.substr(0, jobs[1].job.find('_')));
  // Either worker may have run all four tasks: read both.
  std::string worker_log;
  for (const char* w : {"w0", "w1"}) {
    auto [logged, text, log_err] = fiber.Run({"logs", "--worker", w, check.run_id});
    CHECK_MESSAGE(logged == 0, log_err);
    worker_log += text;
  }
  CHECK_MESSAGE(worker_log.find("worker says") != std::string::npos, worker_log);
}

TEST_CASE("a worker's job cancelled mid-map: its tasks are recovered, every result arrives once, and the loss "
          "says the job was cancelled on stderr, in the log, in fiber top and in /metrics") {
  Fiber fiber;
  NothingLeft check{fiber, ""};
  const std::string metrics = "127.0.0.1:" + std::to_string(fiber::testing::FreeLoopbackPort());
  auto child = StartReady(fiber, check, {"--metrics", metrics, built_program("slow_squares"), "2", "100"}, 2);
  const auto jobs = JobsOf(check.run_id);
  REQUIRE(jobs.size() == 2);
  // fiber top while it maps: each worker with its job and the node it runs on.
  CheckWorkersWhere(fiber.Top(check.run_id), jobs);
  Slurm({"scancel", jobs[0].job});
  const fiber::testing::Loss lost{jobs[0].worker_id, "its Slurm job was cancelled"};
  CheckLossWhileItRuns(fiber, check.run_id, metrics, 100, jobs[0].worker_id, "cancelled",
                       "its Slurm job was cancelled");
  const std::string out = read_all(child.stdout_fd, 300);
  const std::string errors = read_all(child.stderr_fd, 30);
  CHECK_MESSAGE(wait_exit(child, 30) == 0, errors);
  CHECK(out == SlowSquaresOutput(100));
  CHECK_MESSAGE(fiber::testing::TimesSaid(errors, lost) == 1, errors);
  CheckEnd(fiber, check.run_id, {lost}, 100);
}

TEST_CASE("40 workers at 10 per job are 4 Slurm jobs, and the map gives every result once") {
  Fiber fiber;
  NothingLeft check{fiber, ""};
  auto child = StartReady(fiber, check, {"--workers-per-job", "10", built_program("slow_squares"), "40", "160"}, 40);
  const auto jobs = JobsOf(check.run_id);
  CHECK(jobs.size() == 4);
  const std::string out = read_all(child.stdout_fd, 300);
  const std::string errors = read_all(child.stderr_fd, 30);
  CHECK_MESSAGE(wait_exit(child, 30) == 0, errors);
  CHECK(out == SlowSquaresOutput(160));
  CHECK_MESSAGE(errors.find(" lost") == std::string::npos, errors);
}

TEST_CASE("a job of 10 workers cancelled mid-map loses its 10 workers, each once; they are replaced and the map finishes") {
  Fiber fiber;
  NothingLeft check{fiber, ""};
  auto child = StartReady(fiber, check, {"--workers-per-job", "10", built_program("slow_squares"), "40", "4000"}, 40);
  const auto jobs = JobsOf(check.run_id);
  REQUIRE(jobs.size() == 4);
  Slurm({"scancel", jobs[1].job});
  // Replaced: 40 ready again, in new jobs.
  CHECK(eventually([&] { return JobsOf(check.run_id).size() > 4 && fiber.Ps()[0]["workers_ready"] == 40; }, 180));
  const std::string out = read_all(child.stdout_fd, 300);
  const std::string errors = read_all(child.stderr_fd, 30);
  CHECK_MESSAGE(wait_exit(child, 30) == 0, errors);
  CHECK(out == SlowSquaresOutput(4000));
  long first = 0;
  REQUIRE(fiber::worker::WorkerNumber(jobs[1].worker_id, &first));
  for (long n = first; n < first + 10; ++n) {
    const std::string said = "worker w" + std::to_string(n) + " lost";
    const auto at = errors.find(said);
    CHECK_MESSAGE(at != std::string::npos, said << " in " << errors);
    CHECK_MESSAGE(errors.find(said, at + 1) == std::string::npos, said << " twice in " << errors);
  }
}

TEST_CASE("worker jobs preempted by a job of a more urgent partition: their tasks are recovered, none is requeued") {
  Fiber fiber;
  NothingLeft check{fiber, ""};
  auto child = fiber.Start(RunArgs({built_program("slow_squares"), "2", "60"}));
  REQUIRE(eventually([&] { return !fiber.Ps().empty(); }, 60));
  check.run_id = fiber.Ps()[0]["id"];
  REQUIRE(eventually([&] { return fiber.Ps()[0]["workers_ready"] == 2; }, 120));
  // test/slurm's partition urgent preempts the partition fiber; this job
  // needs every CPU of the node, so both workers' jobs must make way.
  Slurm({"sbatch", "--parsable", "--partition=urgent", "--cpus-per-task=" + SlurmValue("FIBER_SLURM_CPUS"),
         "--output=/dev/null", "--wrap", "sleep 3"});
  const std::string out = read_all(child.stdout_fd, 300);
  const std::string errors = read_all(child.stderr_fd, 30);
  CHECK_MESSAGE(wait_exit(child, 30) == 0, errors);
  CHECK(out == SlowSquaresOutput(60));
  CHECK_MESSAGE(errors.find(": its Slurm job was preempted") != std::string::npos, errors);
  // Preempted and cancelled, not requeued (fiber submits --no-requeue),
  // and replaced by new jobs.
  CHECK(JobsIn(check.run_id, "PREEMPTED") == 2);
  CHECK(JobsOf(check.run_id).size() >= 4);
}

TEST_CASE("a worker job killed by its time limit: its tasks are recovered, every result arrives once, and the "
          "loss is said once and counted once in /metrics, as a time limit") {
  Fiber fiber;
  NothingLeft check{fiber, ""};
  const std::string metrics = "127.0.0.1:" + std::to_string(fiber::testing::FreeLoopbackPort());
  // 400 tasks of 300 ms on one worker whose job may run a minute (Slurm's
  // least): Slurm ends it, a new job finishes the map.
  auto child = StartReady(fiber, check,
                          {"--metrics", metrics, "--time-limit", "1", built_program("slow_squares"), "1", "400"}, 1);
  const auto jobs = JobsOf(check.run_id);
  REQUIRE(jobs.size() == 1);
  CheckLossWhileItRuns(fiber, check.run_id, metrics, 400, jobs[0].worker_id, "time_limit",
                       "its Slurm job reached its time limit", 180);
  const std::string out = read_all(child.stdout_fd, 600);
  const std::string errors = read_all(child.stderr_fd, 30);
  CHECK_MESSAGE(wait_exit(child, 30) == 0, errors);
  CHECK(out == SlowSquaresOutput(400));
  // Whether its connection closed first or squeue told first, said once.
  const fiber::testing::Loss lost{jobs[0].worker_id, "its Slurm job reached its time limit"};
  CHECK_MESSAGE(fiber::testing::TimesSaid(errors, lost) == 1, errors);
  CHECK(JobsIn(check.run_id, "TIMEOUT") >= 1);
  CheckEnd(fiber, check.run_id, {lost}, 400);
}

TEST_CASE("Ctrl-C on fiber run ends the program and cancels every job of the run") {
  Fiber fiber;
  NothingLeft check{fiber, ""};
  auto child = fiber.Start(RunArgs({built_program("hold_pool"), "2"}));
  REQUIRE(!read_line(child.stdout_fd, 120).empty());  // the workers' pids, once both are ready
  check.run_id = fiber.Ps()[0]["id"];
  CHECK(JobsIn(check.run_id, "RUNNING") == 2);
  ::kill(child.pid, SIGINT);
  CHECK(wait_exit(child, 120) == 128 + SIGINT);
  // Cancelled as fiber run ends; Slurm takes KillWait to end them.
  CHECK(eventually([&] { return JobsIn(check.run_id, "CANCELLED") == 2; }, 60));
}

TEST_CASE("an elastic pool submits jobs under a burst and ends them when idle, every result once") {
  Fiber fiber;
  NothingLeft check{fiber, ""};
  auto [status, out, err] = fiber.Run(RunArgs({built_program("elastic_burst")}));
  CHECK_MESSAGE(status == 0, err);
  long grew = 0;
  CHECK_MESSAGE(std::sscanf(out.c_str(), "grew to %ld", &grew) == 1, out);
  CHECK_MESSAGE(grew > 1, out);
  CHECK(out.find("sum 4324\n") != std::string::npos);
  CHECK(out.find("back to 0\n") != std::string::npos);
  check.run_id = fiber.Ps()[0]["id"];
  // A job for each worker the pool held, each ended when retired (by the
  // worker's own exit, or a scancel that crossed it): none failed.
  const auto jobs = JobsOf(check.run_id);
  CHECK(static_cast<long>(jobs.size()) >= grew);
  for (const auto& job : jobs)
    CHECK_MESSAGE((job.state == "COMPLETED" || job.state == "CANCELLED"), job.job << " " << job.state);
}

TEST_CASE("Processes run as Slurm jobs and report through a Queue, and their exit codes say how each went") {
  Fiber fiber;
  NothingLeft check{fiber, ""};
  auto [status, out, err] = fiber.Run(RunArgs({built_program("process_queue")}));
  CHECK_MESSAGE(status == 0, err);
  CHECK(out == "item 1 w0\nitem 4 w1\nexitcodes 0 1\n");
  check.run_id = fiber.Ps()[0]["id"];
  CHECK(JobsOf(check.run_id).size() == 2);
}

TEST_CASE("the remote_env example: its environments live in managers that are Slurm jobs, and it learns") {
  Fiber fiber;
  NothingLeft check{fiber, ""};
  auto [status, out, err] = fiber.Run(RunArgs({built_program("../examples/remote_env"), "4", "1"}));
  CHECK_MESSAGE(status == 0, err);
  CHECK_MESSAGE(out.find("best") != std::string::npos, out);
  check.run_id = fiber.Ps()[0]["id"];
  CHECK(JobsOf(check.run_id).size() == 2);  // its two managers
}

TEST_CASE("the master SIGKILLed: no job of the run is left in the queue shortly after") {
  Fiber fiber;
  NothingLeft check{fiber, ""};
  StartHeld(fiber, check, 2);
  CHECK(JobsIn(check.run_id, "RUNNING") == 2);
  ::kill(static_cast<pid_t>(fiber.Record(check.run_id)["master_pid"].get<long>()), SIGKILL);
  CHECK(eventually([&] { return LiveJobs(check.run_id) == 0; }, 60));
}

TEST_CASE("more CPUs than any node has is a clear error with Slurm's reason, and nothing stays queued") {
  Fiber fiber;
  NothingLeft check{fiber, ""};
  auto [status, out, err] = fiber.Run(RunArgs({"--cpu", "64", built_program("chatty_pool")}));
  CHECK(status != 0);
  CHECK_MESSAGE(err.find("Slurm will never run") != std::string::npos, err);
  CHECK_MESSAGE(err.find("PartitionConfig") != std::string::npos, err);
  check.run_id = fiber.Ps()[0]["id"];
  CHECK(LiveJobs(check.run_id) == 0);
}

TEST_CASE("more memory than any node has is refused by sbatch: its error ends the run, nothing is queued") {
  Fiber fiber;
  NothingLeft check{fiber, ""};
  auto [status, out, err] = fiber.Run(RunArgs({"--memory", "64Gi", built_program("chatty_pool")}));
  CHECK(status != 0);
  CHECK_MESSAGE(err.find("could not start: its job could not be submitted: sbatch failed") != std::string::npos, err);
  CHECK_MESSAGE(err.find("Requested node configuration is not available") != std::string::npos, err);
  check.run_id = fiber.Ps()[0]["id"];
  CHECK(LiveJobs(check.run_id) == 0);
}

TEST_CASE("a job waiting for memory says why, once, in the log and in ps, and is not lost for waiting") {
  Fiber fiber;
  NothingLeft check{fiber, ""};
  // Two workers of 12 GiB on a node of 16: the second waits for the first,
  // longer than a start timeout that counts only once it leaves the queue.
  auto [status, out, err] = fiber.Run(
      RunArgs({"--detach", "--memory", "12Gi", "--start-timeout", "1", built_program("hold_pool"), "2"}));
  REQUIRE_MESSAGE(status == 0, err);
  check.run_id = out.substr(0, out.find('\n'));
  auto waiting = [&] {
    const json runs = fiber.Ps();
    for (const json& job : runs[0]["jobs"])
      if (!job.value("waiting", "").empty()) return job["waiting"].get<std::string>();
    return std::string();
  };
  CHECK(eventually([&] { return waiting().rfind("Resources", 0) == 0; }, 60));
  auto [listed, table, table_err] = fiber.Run({"ps"});
  CHECK_MESSAGE(table.find(": Resources (") != std::string::npos, table);
  CHECK(eventually([&] {
    auto [logged, master_log, log_err] = fiber.Run({"logs", check.run_id});
    return master_log.find("waits in Slurm's queue: Resources") != std::string::npos;
  }, 30));
  const std::string first_wait = waiting();
  std::this_thread::sleep_for(std::chrono::seconds(3));
  auto [logged, master_log, log_err] = fiber.Run({"logs", check.run_id});
  CHECK_MESSAGE(master_log.find("lost") == std::string::npos, master_log);
  CHECK(JobsIn(check.run_id, "PENDING") == 1);
  CHECK(JobsIn(check.run_id, "CANCELLED") == 0);
  CHECK(waiting() == first_wait);
  auto [stopped, stop_out, stop_err] = fiber.Run({"stop", check.run_id});
  CHECK_MESSAGE(stopped == 0, stop_err);
}

TEST_CASE("ps, logs and stop on a Slurm run whose launcher and master were killed; the key is in no script") {
  Fiber fiber;
  NothingLeft check{fiber, ""};
  // Workers that wait long for a lost master, so that their jobs are still
  // there for fiber stop to cancel.
  StartHeld(fiber, check, 2, {"--heartbeat-timeout", "120"});
  const json jobs = fiber.Ps()[0]["jobs"];
  REQUIRE(jobs.size() == 2);
  CHECK(jobs[0]["state"] == "RUNNING");
  // The script Slurm keeps names the key's file, which the worker deleted.
  const std::string script = Slurm({"scontrol", "write", "batch_script", jobs[0]["job"].get<std::string>(), "-"});
  CHECK_MESSAGE(script.find("FIBER_CLIENT_KEY_FILE=") != std::string::npos, script);
  CHECK(script.find("FIBER_CLIENT_KEY=") == std::string::npos);
  const std::string run_dir = fiber.state.path() + "/fiber/runs/" + check.run_id;
  for (const auto& file : std::filesystem::directory_iterator(run_dir + "/slurm"))
    CHECK_MESSAGE(file.path().extension() != ".key", file.path());
  const json record = fiber.Record(check.run_id);
  ::kill(static_cast<pid_t>(record["supervisor_pid"].get<long>()), SIGKILL);
  ::kill(static_cast<pid_t>(record["master_pid"].get<long>()), SIGKILL);
  CHECK(fiber.Ps()[0]["jobs"].size() == 2);
  auto [logged, log_out, log_err] = fiber.Run({"logs", "--worker", "w1", check.run_id});
  CHECK_MESSAGE(logged == 0, log_err);
  auto [stopped, stop_out, stop_err] = fiber.Run({"stop", check.run_id});
  CHECK_MESSAGE(stopped == 0, stop_err);
  CHECK_MESSAGE(stop_err.find("removed 2 Slurm jobs of run " + check.run_id) != std::string::npos, stop_err);
  CHECK(eventually([&] { return LiveJobs(check.run_id) == 0; }, 30));
}

TEST_CASE("leftovers after kill -9 of a Slurm run: ps names its pending jobs and the key files waiting for them; "
          "stop cancels and deletes them from any shell, prune removes the run, and another run is untouched") {
  Fiber fiber;
  NothingLeft check{fiber, ""}, other_check{fiber, ""};
  // Jobs that wait an hour to begin: pending, holding nothing of the
  // shared cluster, their keys unread on the shared disk.
  auto start = [&](NothingLeft& guard, int workers) {
    auto [status, out, err] = fiber.Run(RunArgs({"--detach", "--sbatch-options=--begin=now+1hour",
                                                 built_program("hold_pool"), std::to_string(workers)}));
    REQUIRE_MESSAGE(status == 0, err);
    guard.run_id = out.substr(0, out.find('\n'));
    REQUIRE(eventually([&] { return JobsIn(guard.run_id, "PENDING") == workers; }, 60));
    return guard.run_id;
  };
  const std::string lost = start(check, 2);
  const std::string other = start(other_check, 1);
  const std::string keys = fiber.state.path() + "/fiber/runs/" + lost + "/slurm";
  auto key_files = [&](const std::string& dir) {
    int n = 0;
    std::error_code ec;
    for (const auto& file : std::filesystem::directory_iterator(dir, ec)) n += file.path().extension() == ".key";
    return n;
  };
  REQUIRE(key_files(keys) == 2);
  fiber.KillRun(lost);
  // From a shell whose SLURM_CONF names no cluster: the runs' own is used.
  fiber.env["SLURM_CONF"] = fiber.state.path() + "/no-slurm.conf";
  REQUIRE(eventually([&] { return fiber.PsOf(lost)["state"] == "master died"; }));
  CHECK(fiber.PsOf(lost)["leftovers"] == json::array({"2 Slurm jobs", "2 key files"}));
  auto [listed, table, table_err] = fiber.Run({"ps"});
  CHECK_MESSAGE(table.find("left behind: 2 Slurm jobs, 2 key files; fiber stop " + lost) != std::string::npos, table);
  for (int twice = 0; twice < 2; ++twice) {
    auto [stopped, stop_out, stop_err] = fiber.Run({"stop", lost});
    CHECK_MESSAGE(stopped == 0, stop_err);
  }
  CHECK(eventually([&] { return LiveJobs(lost) == 0; }, 30));
  CHECK(key_files(keys) == 0);
  CHECK(eventually([&] { return fiber.PsOf(lost)["leftovers"] == json::array(); }, 30));
  fiber.CheckPruned(lost, other);
  // The other run keeps its job and its key.
  CHECK(JobsIn(other, "PENDING") == 1);
  CHECK(key_files(fiber.state.path() + "/fiber/runs/" + other + "/slurm") == 1);
  auto [stopped, stop_out, stop_err] = fiber.Run({"stop", other});
  CHECK_MESSAGE(stopped == 0, stop_err);
}

TEST_CASE("ps shows each of two Slurm runs with its own jobs") {
  Fiber fiber;
  NothingLeft first{fiber, ""}, second{fiber, ""};
  for (auto* check : {&first, &second}) {
    auto [status, out, err] = fiber.Run(RunArgs({"--detach", built_program("hold_pool"), "1"}));
    REQUIRE_MESSAGE(status == 0, err);
    check->run_id = out.substr(0, out.find('\n'));
  }
  auto running = [&](const json& row) { return row["jobs"].size() == 1 && row["jobs"][0]["state"] == "RUNNING"; };
  REQUIRE(eventually([&] {
    const json runs = fiber.Ps();
    return runs.size() == 2 && running(runs[0]) && running(runs[1]);
  }, 120));
  const json runs = fiber.Ps();
  for (const json& row : runs) {
    const auto jobs = JobsOf(row["id"]);
    REQUIRE(jobs.size() == 1);
    CHECK(row["jobs"][0]["job"] == jobs[0].job);
  }
  CHECK(runs[0]["jobs"][0]["job"] != runs[1]["jobs"][0]["job"]);
  for (auto* check : {&first, &second}) {
    auto [stopped, stop_out, stop_err] = fiber.Run({"stop", check->run_id});
    CHECK_MESSAGE(stopped == 0, stop_err);
  }
}

TEST_CASE("a master on a loopback address with nodes elsewhere in the partition is refused before any job is queued") {
  Fiber fiber;
  NothingLeft check{fiber, ""};
  // test/slurm's one node is this machine, and a node elsewhere cannot be
  // made here without traffic off loopback: sinfo, first on PATH, is a
  // script that lists one beside it. sbatch and the rest are Slurm's.
  fiber::testing::TempDir bin;
  const std::string sinfo = bin.path() + "/sinfo";
  std::ofstream(sinfo) << "#!/bin/sh\nprintf 'fiber*|node01|node01|10.0.0.1\\nfiber*|localhost|localhost|127.0.0.1\\n'\n";
  std::filesystem::permissions(sinfo, std::filesystem::perms::owner_all);
  fiber.env["PATH"] = bin.path() + ":" + std::getenv("PATH");
  auto [status, out, err] = fiber.Run(RunArgs({built_program("chatty_pool")}));
  CHECK(status != 0);
  CHECK_MESSAGE(err.find("worker jobs may run on node01, which cannot connect to the master at tcp://127.0.0.1:") !=
                    std::string::npos,
                err);
  CHECK_MESSAGE(err.find("set advertise_host") != std::string::npos, err);
  check.run_id = fiber.Ps()[0]["id"];
  CHECK(JobsOf(check.run_id).empty());
}

TEST_CASE("without sbatch on PATH the run fails with one error naming it") {
  Fiber fiber;
  fiber.env["PATH"] = "/nonexistent";
  auto [status, out, err] = fiber.Run(RunArgs({built_program("chatty_pool")}));
  CHECK(status != 0);
  CHECK_MESSAGE(err.find("sbatch is not installed (no such program on PATH)") != std::string::npos, err);
}

TEST_CASE("a controller that does not answer fails the run with sbatch's own error, once the retries are out") {
  Fiber fiber;
  // The test Slurm's config with a port nothing listens on.
  std::ifstream in(SlurmValue("SLURM_CONF"));
  std::string conf((std::istreambuf_iterator<char>(in)), {});
  const std::string port = "SlurmctldPort=";
  const auto at = conf.find(port);
  REQUIRE(at != std::string::npos);
  conf.replace(at + port.size(), conf.find('\n', at) - at - port.size(), "9");
  fiber::testing::TempDir dir;
  fiber.env["SLURM_CONF"] = dir.write("slurm.conf", conf);
  auto [status, out, err] = fiber.Run(RunArgs({built_program("chatty_pool")}));
  CHECK(status != 0);
  CHECK_MESSAGE(err.find("could not start: its job could not be submitted: sbatch failed") != std::string::npos, err);
  CHECK_MESSAGE(err.find("Unable to contact slurm controller") != std::string::npos, err);
  CHECK_MESSAGE(err.find("tried ") != std::string::npos, err);
}

TEST_CASE("pool.resize submits jobs as the pool grows and cancels them as it shrinks") {
  Fiber fiber;
  NothingLeft check{fiber, ""};
  auto child = fiber.Start(RunArgs({built_program("resize_pool")}));
  CHECK(read_line(child.stdout_fd, 120) == "workers 1");
  check.run_id = fiber.Ps()[0]["id"];
  CHECK(read_line(child.stdout_fd, 120) == "workers 3");
  CHECK(JobsIn(check.run_id, "RUNNING") == 3);
  const auto master = static_cast<pid_t>(fiber.Record(check.run_id)["master_pid"].get<long>());
  ::kill(master, SIGUSR1);
  CHECK(read_line(child.stdout_fd, 120) == "workers 1");
  // The jobs of the workers retired end, and are not replaced.
  CHECK(eventually([&] { return LiveJobs(check.run_id) == 1; }, 60));
  ::kill(master, SIGUSR1);
  CHECK(read_all(child.stdout_fd, 120) == "sum 20\n");
  CHECK(wait_exit(child, 60) == 0);
}

TEST_CASE("master: cluster runs the program as a Slurm job: its output is fiber run's stdout, its exit status fiber run's") {
  Fiber fiber;
  NothingLeft check{fiber, ""};
  auto [status, out, err] = fiber.Run(RunArgs({"--master", "cluster", built_program("chatty_pool"), "3"}));
  CHECK_MESSAGE(status == 3, err);
  CHECK(out == "result 10\nresult 20\nresult 30\nresult 40\n");
  CHECK_MESSAGE(err.find("the master runs as Slurm job ") != std::string::npos, err);
  // Its workers' output, followed from the run's directory.
  CHECK_MESSAGE(err.find("] worker says") != std::string::npos, err);
  const json run = fiber.Ps()[0];
  check.run_id = run["id"];
  CHECK(run["exit_status"] == 3);
  // Its final numbers, written by the master in its job to the run's
  // directory on the filesystem the nodes share.
  CHECK(run["counts_as_of"] == "end");
  CHECK(run["tasks_done"] == 4);
  CHECK(run["workers_started"] == 2);
  auto [logged, master_log, log_err] = fiber.Run({"logs", check.run_id});
  CHECK_MESSAGE(master_log.find("result 40") != std::string::npos, master_log);
}

TEST_CASE("master: cluster stopped by fiber stop: the program ends by SIGTERM in its job, and nothing is left") {
  Fiber fiber;
  NothingLeft check{fiber, ""};
  auto [status, out, err] =
      fiber.Run(RunArgs({"--detach", "--master", "cluster", built_program("hold_pool"), "1"}));
  REQUIRE_MESSAGE(status == 0, err);
  check.run_id = out.substr(0, out.find('\n'));
  // The master's job and its worker's.
  REQUIRE(eventually([&] { return JobsIn(check.run_id, "RUNNING") == 2; }, 120));
  const json jobs = fiber.Ps()[0]["jobs"];
  int masters = 0;
  for (const json& job : jobs) masters += job["worker"] == "master";
  CHECK(masters == 1);
  auto [stopped, stop_out, stop_err] = fiber.Run({"stop", check.run_id});
  CHECK_MESSAGE(stopped == 0, stop_err);
  CHECK(fiber.Ps()[0]["exit_status"] == 128 + SIGTERM);
}

TEST_CASE("array_limit lets only so many of a pool's jobs run at once; the others wait, unannounced") {
  Fiber fiber;
  NothingLeft check{fiber, ""};
  auto [status, out, err] = fiber.Run(RunArgs({"--detach", "--array-limit", "1", built_program("hold_pool"), "2"}));
  REQUIRE_MESSAGE(status == 0, err);
  check.run_id = out.substr(0, out.find('\n'));
  REQUIRE(eventually([&] { return fiber.Ps()[0]["workers_ready"] == 1; }, 60));
  CHECK(eventually([&] {
    const json runs = fiber.Ps();
    for (const json& job : runs[0]["jobs"])
      if (job.value("waiting", "").rfind("JobArrayTaskLimit", 0) == 0) return true;
    return false;
  }, 30));
  CHECK(JobsIn(check.run_id, "RUNNING") == 1);
  auto [logged, master_log, log_err] = fiber.Run({"logs", check.run_id});
  CHECK_MESSAGE(master_log.find("waits in Slurm's queue") == std::string::npos, master_log);
  auto [stopped, stop_out, stop_err] = fiber.Run({"stop", check.run_id});
  CHECK_MESSAGE(stopped == 0, stop_err);
}

namespace {

// sbatch as another user of the cluster (nobody, uid 65534): a job array
// of one task named and commented as worker wN of run_id would be, running
// script; its job id ("12").
std::string StrangersLookAlike(const std::string& run_id, long n, const std::string& script) {
  (void)SlurmValue("SLURM_CONF");
  Child c = spawn({"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "sbatch", "--parsable",
                   "--partition=" + SlurmValue("FIBER_SLURM_PARTITION"), "--job-name=fiber-" + run_id,
                   "--comment=" + fiber::backend::JobComment(run_id, n), "--array=0", "--chdir=/tmp",
                   "--output=/dev/null", "--wrap", script},
                  {}, "/tmp");
  const std::string out = read_all(c.stdout_fd, 60);
  const std::string err = read_all(c.stderr_fd, 60);
  REQUIRE_MESSAGE(wait_exit(c, 60) == 0, "sbatch as nobody: " << err);
  std::string job;
  REQUIRE_MESSAGE(fiber::backend::ParseSbatchJobId(out, &job), out);
  return job;
}

// squeue's state of job ("12"), as root sees every user's jobs; "" once
// Slurm forgot it.
std::string StateOfJob(const std::string& job) {
  std::string out = Slurm({"squeue", "--noheader", "--states=all", "--array", "--jobs=" + job, "--format=%T"});
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

}  // namespace

TEST_CASE("another user's jobs named and commented as a run's workers are not the run's: the map, ps and stop ignore them") {
  Fiber fiber;
  NothingLeft check{fiber, ""};
  auto child = fiber.Start(RunArgs({built_program("slow_squares"), "2", "60"}));
  REQUIRE(eventually([&] { return !fiber.Ps().empty(); }, 60));
  check.run_id = fiber.Ps()[0]["id"];
  // Look-alikes of w0 (ended at once: the run's w0 lost, if it were
  // believed) and of w1 (running: the run's, for fiber stop to cancel).
  const std::string ended = StrangersLookAlike(check.run_id, 0, "true");
  const std::string running = StrangersLookAlike(check.run_id, 1, "sleep 300");
  const std::string out = read_all(child.stdout_fd, 300);
  const std::string errors = read_all(child.stderr_fd, 30);
  CHECK_MESSAGE(wait_exit(child, 30) == 0, errors);
  CHECK(out == SlowSquaresOutput(60));
  CHECK_MESSAGE(errors.find(" lost") == std::string::npos, errors);
  CHECK(StateOfJob(ended) == "COMPLETED");
  CHECK(StateOfJob(running) == "RUNNING");

  const json run = fiber.Ps()[0];
  REQUIRE(run["id"] == check.run_id);
  for (const json& job : run["jobs"]) {
    const std::string id = job["job"];
    CHECK(id.substr(0, id.find('_')) != ended);
    CHECK(id.substr(0, id.find('_')) != running);
  }
  auto [stopped, stop_out, stop_err] = fiber.Run({"stop", check.run_id});
  CHECK_MESSAGE(stopped == 0, stop_err);
  CHECK_MESSAGE(stop_err.find("removed") == std::string::npos, stop_err);
  CHECK(StateOfJob(running) == "RUNNING");
  Slurm({"scancel", running});
  CHECK(eventually([&] { return StateOfJob(running) == "CANCELLED"; }, 60));
}

TEST_CASE("master: cluster's batch script sets an --env value as given and runs nothing of it") {
  Fiber fiber;
  NothingLeft check{fiber, ""};
  fiber::testing::TempDir dir;
  const std::string marker = dir.path() + "/ran";
  const std::string value = "it's $(touch " + marker + ") `touch " + marker + "` \"$HOME\"; touch " + marker;
  auto [status, out, err] = fiber.Run(
      RunArgs({"--master", "cluster", "--env", "TRICKY=" + value, "/bin/sh", "-c", "printf '%s\\n' \"$TRICKY\""}));
  CHECK_MESSAGE(status == 0, err);
  CHECK(out == value + "\n");
  CHECK(!std::filesystem::exists(marker));
}

TEST_CASE("master: cluster whose launcher got kill -9: ps says running, prune keeps its job and record; "
          "stop ends it and prune then removes everything") {
  Fiber fiber;
  NothingLeft check{fiber, ""};
  auto [status, out, err] = fiber.Run(RunArgs({"--detach", "--master", "cluster", built_program("hold_pool"), "1"}));
  REQUIRE_MESSAGE(status == 0, err);
  check.run_id = out.substr(0, out.find('\n'));
  const std::string id = check.run_id;
  // The master's job and its worker's.
  REQUIRE(eventually([&] { return JobsIn(id, "RUNNING") == 2; }, 120));
  fiber.CheckLauncherGoneKept(id);
  CHECK(JobsIn(id, "RUNNING") == 2);
  fiber.CheckStoppedAndPruned(id);
  CHECK(eventually([&] { return LiveJobs(id) == 0; }, 30));
}
