// A user's runs by name and id, in detail, and cleaned up: the real fiber
// command and real programs, every run's records in a directory of the
// test's.
#include <doctest/doctest.h>
#include <signal.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "config/settings.hpp"
#include "subprocess.hpp"
#include "support/fiber_command.hpp"

using fiber::testing::eventually;
using fiber::testing::Fiber;

namespace {

std::string StateOf(Fiber& fiber, const std::string& id) {
  const nlohmann::json run = fiber.PsOf(id);
  return run.is_null() ? "" : run["state"].get<std::string>();
}

// fiber run --detach --name name of slow_squares, 2 workers and 200 tasks
// (half a minute), once 2 tasks are done; its id.
std::string SquaresUnderWay(Fiber& fiber, const std::string& name) {
  const std::string id = fiber.Detached({"--name", name, built_program("slow_squares"), "2", "200"});
  REQUIRE(eventually([&] {
    const nlohmann::json run = fiber.PsOf(id);
    return !run.is_null() && run["tasks_done"].is_number_integer() && run["tasks_done"].get<int>() >= 2;
  }));
  return id;
}

std::string RunsDir(Fiber& fiber) { return fiber.state.path() + "/fiber/runs"; }

}  // namespace

TEST_CASE("a reused name means the newest run: stop and logs act on the one running") {
  Fiber fiber;
  const std::string old_id = fiber.Detached({"--name", "sweep", "sh", "-c", "echo first run"});
  REQUIRE(eventually([&] { return StateOf(fiber, old_id) == "exited"; }));
  const std::string new_id = fiber.Detached(
      {"--name", "sweep", "sh", "-c", "echo second run; while :; do sleep 0.1; done"});
  REQUIRE(new_id != old_id);
  REQUIRE(eventually([&] {
    auto [status, out, err] = fiber.Run({"logs", "sweep"});
    return status == 0 && out == "second run\n";
  }));
  auto [ps_status, ps_out, ps_err] = fiber.Run({"ps", "--json", "sweep"});
  REQUIRE_MESSAGE(ps_status == 0, ps_err);
  CHECK(nlohmann::json::parse(ps_out)["id"] == new_id);
  auto [stop_status, stop_out, stop_err] = fiber.Run({"stop", "sweep"});
  CHECK_MESSAGE(stop_status == 0, stop_err);
  CHECK(stop_err.find("already ended") == std::string::npos);
  CHECK(StateOf(fiber, new_id) == "exited");
  // Both ended now: the name still means the newer.
  auto [logs_status, logs, logs_err] = fiber.Run({"logs", "sweep"});
  CHECK(logs == "second run\n");
  // The older run is still reached by its id.
  auto [old_status, old_logs, old_err] = fiber.Run({"logs", old_id});
  CHECK(old_logs == "first run\n");
}

TEST_CASE("an ambiguous prefix of a run id is an error that lists the candidates") {
  Fiber fiber;
  const std::string id = fiber.Detached({"--name", "one", "true"});
  REQUIRE(eventually([&] { return StateOf(fiber, id) == "exited"; }));
  // A second run whose id differs in its last digit only.
  const std::string twin = id.substr(0, 11) + (id[11] == '0' ? "1" : "0");
  std::filesystem::copy(RunsDir(fiber) + "/" + id, RunsDir(fiber) + "/" + twin,
                        std::filesystem::copy_options::recursive);
  nlohmann::json record = fiber.Record(id);
  record["id"] = twin;
  record["name"] = "two";
  std::ofstream(RunsDir(fiber) + "/" + twin + "/run.json") << record.dump();

  auto [status, out, err] = fiber.Run({"logs", id.substr(0, 11)});
  CHECK(status == 1);
  CHECK(err.find("'" + id.substr(0, 11) + "' is the start of 2 run ids") != std::string::npos);
  CHECK(err.find(id + "  one") != std::string::npos);
  CHECK(err.find(twin + "  two") != std::string::npos);
  auto [whole, whole_out, whole_err] = fiber.Run({"ps", "--json", twin});
  CHECK_MESSAGE(whole == 0, whole_err);
}

TEST_CASE("ps RUN shows one run's workers with their tasks, and its tasks done, running and queued") {
  Fiber fiber;
  // 2 workers, 200 tasks of 300 ms: half a minute, stopped well before.
  const std::string id = fiber.Detached({"--name", "squares", built_program("slow_squares"), "2", "200"});
  nlohmann::json run;
  REQUIRE(eventually([&] {
    auto [status, out, err] = fiber.Run({"ps", "--json", "squares"});
    if (status != 0) return false;
    run = nlohmann::json::parse(out);
    return run["tasks_done"].is_number_integer() && run["tasks_done"].get<int>() >= 2;
  }));
  CHECK(run["id"] == id);
  CHECK(run["state"] == "running");
  CHECK(run["tasks_failed"] == 0);
  CHECK(run["tasks_running"].is_number_integer());
  CHECK(run["tasks_queued"].get<int>() > 0);
  CHECK(run["tasks_done"].get<int>() + run["tasks_running"].get<int>() + run["tasks_queued"].get<int>() <= 200);
  CHECK(run["elapsed"].is_number_integer());
  CHECK(run["workers_ready"] == 2);
  REQUIRE(run["workers"].is_array());
  CHECK(run["workers"].size() == 2);
  for (const auto& w : run["workers"]) {
    CHECK(w["id"].is_string());
    CHECK(w["pid"].is_number_integer());
    CHECK((w["state"] == "ready" || w["state"] == "busy"));
  }
  auto [status, table, err] = fiber.Run({"ps", "squares"});
  CHECK(status == 0);
  CHECK(table.find("Tasks:") != std::string::npos);
  CHECK(table.find("square_slowly") != std::string::npos);  // a worker's task
  CHECK(table.find(run["workers"][0]["id"].get<std::string>()) != std::string::npos);
  // The list's heading says what TASKS counts.
  auto [list_status, list, list_err] = fiber.Run({"ps"});
  CHECK(list.find("TASKS RUN/QUEUED") != std::string::npos);
  auto [stop_status, stop_out, stop_err] = fiber.Run({"stop", "squares"});
  CHECK(stop_status == 0);
}

TEST_CASE("ps RUN of a run that ended shows its final numbers: tasks done, failed and queued, workers started") {
  Fiber fiber;
  auto [run_status, run_out, run_err] =
      fiber.Run({"run", "--name", "finished", built_program("slow_squares"), "2", "6"});
  REQUIRE_MESSAGE(run_status == 0, run_err);
  CHECK(run_out == fiber::testing::SlowSquaresOutput(6));
  auto [status, out, err] = fiber.Run({"ps", "--json", "finished"});
  REQUIRE_MESSAGE(status == 0, err);
  nlohmann::json run = nlohmann::json::parse(out);
  CHECK(run["state"] == "exited");
  CHECK(run["exit_status"] == 0);
  CHECK(run["tasks_done"] == 6);
  CHECK(run["tasks_failed"] == 0);
  CHECK(run["tasks_queued"] == 0);
  CHECK(run["tasks_running"] == 0);
  CHECK(run["workers_started"] == 2);
  CHECK(run["elapsed"].is_number_integer());
  CHECK(run["counts_unknown"].is_null());
  CHECK(run["counts_as_of"] == "end");
  auto [table_status, table, table_err] = fiber.Run({"ps", "finished"});
  CHECK(table_status == 0);
  CHECK(table.find("Tasks:    6 done, 0 failed, 0 running, 0 queued\n") != std::string::npos);
  CHECK(table.find(", 2 started\n") != std::string::npos);
  CHECK(table.find("counts unknown") == std::string::npos);
  // The list shows the same numbers.
  auto [list_status, list, list_err] = fiber.Run({"ps", "-a", "--json"});
  CHECK(nlohmann::json::parse(list)[0]["tasks_done"] == 6);
}

TEST_CASE("ps RUN of a run ended by fiber stop shows its counts as of the stop") {
  Fiber fiber;
  const std::string id = SquaresUnderWay(fiber, "stopped");
  // SIGTERM ends slow_squares at once: its master writes nothing itself.
  auto [stop_status, stop_out, stop_err] = fiber.Run({"stop", "stopped"});
  REQUIRE_MESSAGE(stop_status == 0, stop_err);
  auto [status, out, err] = fiber.Run({"ps", "--json", "stopped"});
  REQUIRE_MESSAGE(status == 0, err);
  nlohmann::json run = nlohmann::json::parse(out);
  CHECK(run["exit_status"] == 128 + SIGTERM);
  CHECK(run["counts_as_of"] == "stop");
  CHECK(run["counts_unknown"].is_null());
  REQUIRE(run["tasks_done"].is_number_integer());
  CHECK(run["tasks_done"].get<int>() >= 2);
  CHECK(run["tasks_queued"].get<int>() > 0);  // never run
  CHECK(run["workers_started"] == 2);
  auto [table_status, table, table_err] = fiber.Run({"ps", "stopped"});
  CHECK(table.find("counts as of the stop") != std::string::npos);
}

TEST_CASE("ps RUN of a run whose launcher was killed says its counts are unknown, not the last running ones") {
  Fiber fiber;
  const std::string id = SquaresUnderWay(fiber, "cut");
  // No status.json: the launcher never saw the end; its program dies with it.
  ::kill(static_cast<pid_t>(fiber.Record(id)["supervisor_pid"].get<long>()), SIGKILL);
  REQUIRE(eventually([&] { return StateOf(fiber, id) == "master died"; }));
  auto [status, out, err] = fiber.Run({"ps", "--json", "cut"});
  REQUIRE_MESSAGE(status == 0, err);
  nlohmann::json run = nlohmann::json::parse(out);
  CHECK(run["counts_unknown"] == "the launcher was killed");
  CHECK(run["counts_as_of"].is_null());
  CHECK(run["elapsed"].is_null());  // when it ended is not known either
  for (const char* number : {"tasks_done", "tasks_failed", "tasks_queued", "tasks_running", "workers_started"})
    CHECK_MESSAGE(run[number].is_null(), number);
  auto [table_status, table, table_err] = fiber.Run({"ps", "cut"});
  CHECK(table.find("Tasks:    - done, - failed, - running, - queued\n") != std::string::npos);
  CHECK(table.find("counts unknown: the launcher was killed") != std::string::npos);
}

TEST_CASE("rm and prune remove ended runs' records, and refuse a running one") {
  Fiber fiber;
  fiber.WithoutEngine();  // image_prune_test tests the images' pruning
  const std::string a = fiber.Detached({"--name", "a", "true"});
  const std::string b = fiber.Detached({"--name", "b", "sh", "-c", "echo some output"});
  const std::string c = fiber.Detached({"--name", "c", "true"});
  const std::string held = fiber.Detached({"--name", "held", "sh", "-c", "while :; do sleep 0.1; done"});
  for (const std::string& id : {a, b, c})
    REQUIRE(eventually([&] { return StateOf(fiber, id) == "exited"; }));

  auto [rm_status, rm_out, rm_err] = fiber.Run({"rm", "a", "held"});
  CHECK(rm_status == 1);
  CHECK(rm_out == a + "\n");
  CHECK(rm_err.find("run " + held + " (held) is running") != std::string::npos);
  CHECK(!std::filesystem::exists(RunsDir(fiber) + "/" + a));
  CHECK(std::filesystem::exists(RunsDir(fiber) + "/" + held));

  auto [prune_status, pruned, prune_err] = fiber.Run({"prune"});
  CHECK_MESSAGE(prune_status == 0, prune_err);
  CHECK(pruned.find(b + "  b") != std::string::npos);
  CHECK(pruned.find(c + "  c") != std::string::npos);
  CHECK(pruned.find(held) == std::string::npos);
  CHECK(pruned.find("Total reclaimed space: ") != std::string::npos);
  const nlohmann::json left = fiber.Ps();
  REQUIRE(left.size() == 1);
  CHECK(left[0]["id"] == held);
  CHECK(left[0]["state"] == "running");

  auto [stop_status, stop_out, stop_err] = fiber.Run({"stop", "held"});
  CHECK(stop_status == 0);
  auto [again, again_out, again_err] = fiber.Run({"rm", "held"});
  CHECK_MESSAGE(again == 0, again_err);
  CHECK(fiber.Ps().empty());
}

TEST_CASE("leftovers after kill -9 of a local run: its workers die with their master, ps says it left "
          "nothing, and stop and prune remove its record, not another run's") {
  Fiber fiber;
  // 2 workers, 200 tasks of 300 ms each: killed well before the end.
  const std::string lost = fiber.Detached({built_program("slow_squares"), "2", "200"});
  REQUIRE(eventually([&] { return fiber.PsOf(lost)["workers_ready"] == 2; }, 60));
  const std::string other = fiber.Detached({built_program("slow_squares"), "1", "200"});
  REQUIRE(eventually([&] { return fiber.PsOf(other)["workers_ready"] == 1; }, 60));
  const long master = fiber.Record(lost)["master_pid"].get<long>();
  fiber.KillRun(lost);
  REQUIRE(eventually([&] { return StateOf(fiber, lost) == "master died"; }));
  // The workers end with their fork server, which ends with the master.
  CHECK(eventually([&] { return ::kill(-static_cast<pid_t>(master), 0) != 0; }, 30));
  const nlohmann::json row = fiber.PsOf(lost);
  REQUIRE(row.contains("leftovers"));
  CHECK(row["leftovers"] == nlohmann::json::array());
  auto [listed, table, table_err] = fiber.Run({"ps"});
  CHECK_MESSAGE(table.find(lost) == std::string::npos, table);  // not running, nothing left
  for (int twice = 0; twice < 2; ++twice) {
    auto [stopped, stop_out, stop_err] = fiber.Run({"stop", lost});
    CHECK_MESSAGE(stopped == 0, stop_err);
  }
  fiber.CheckPruned(lost, other);
  CHECK(fiber.PsOf(other)["workers_ready"] == 1);
  auto [stopped, stop_out, stop_err] = fiber.Run({"stop", other});
  CHECK_MESSAGE(stopped == 0, stop_err);
}

// The unit backend/run_records.cpp: what a run records of where its engine
// was, read back for fiber ps, logs and stop from any shell.
#include "backend/engine_adapter.hpp"
#include "backend/run_records.hpp"

TEST_CASE("a run finds its engine from the variables it recorded, not this shell's") {
  fiber::backend::RunPlace run;
  run.engine_env = std::map<std::string, std::string>{{"DOCKER_HOST", "unix:///recorded.sock"}};
  ::setenv("DOCKER_HOST", "unix:///this-shell.sock", 1);
  const fiber::config::Getenv getenv = run.Getenv();
  CHECK(std::string(getenv("DOCKER_HOST")) == "unix:///recorded.sock");
  CHECK(getenv("KUBECONFIG") == nullptr);
  // Recorded by a fiber that kept none: this process's.
  run.engine_env.reset();
  CHECK(std::string(run.Getenv()("DOCKER_HOST")) == "unix:///this-shell.sock");
  ::unsetenv("DOCKER_HOST");
}

TEST_CASE("fiber run records only the variables that say where engines and clusters are") {
  const std::map<std::string, std::string> set = {
      {"DOCKER_HOST", "unix:///d.sock"}, {"KUBECONFIG", "/k"}, {"SLURM_CONF", "/s"}, {"SECRET_TOKEN", "t"}};
  const auto env = fiber::backend::EngineEnvironment([&](const char* name) -> const char* {
    const auto it = set.find(name);
    return it == set.end() ? nullptr : it->second.c_str();
  });
  CHECK(env == std::map<std::string, std::string>{{"DOCKER_HOST", "unix:///d.sock"}, {"KUBECONFIG", "/k"}, {"SLURM_CONF", "/s"}});
}

TEST_CASE("what a run left is counted in words") {
  CHECK(fiber::backend::Counted(0, "pod").empty());
  CHECK(fiber::backend::Counted(1, "pod") == "1 pod");
  CHECK(fiber::backend::Counted(3, "Slurm job") == "3 Slurm jobs");
}

TEST_CASE("ps RUN says whether workers called the run's managers in one hop or through the master") {
  // Four Processes set 100 keys of a manager's dict (the README's example).
  for (const bool reachable : {true, false}) {
    CAPTURE(reachable);
    Fiber fiber;
    // A manager that tells its callers an address where nothing listens.
    if (!reachable) fiber.env["FIBER_MANAGER_HOST"] = "127.0.0.2";
    auto [run_status, run_out, run_err] =
        fiber.Run({"run", "--name", "dict", built_program("readme_processes")});
    REQUIRE_MESSAGE(run_status == 0, run_err);
    CHECK(run_out.find("size 100\n") != std::string::npos);
    auto [status, out, err] = fiber.Run({"ps", "--json", "dict"});
    REQUIRE_MESSAGE(status == 0, err);
    const nlohmann::json run = nlohmann::json::parse(out);
    CHECK(run["manager_calls_via_master"] == (reachable ? 0 : 100));
    auto [table_status, table, table_err] = fiber.Run({"ps", "dict"});
    CHECK(table.find(reachable ? "Managers: 0 calls from workers through the master (any others in one hop)\n"
                               : "Managers: 100 calls from workers through the master (a fallback)\n") !=
          std::string::npos);
  }
}
