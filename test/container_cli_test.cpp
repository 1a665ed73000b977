// fiber run, ps, logs and stop with workers in containers of this machine's
// Docker engine, each test's program packaged by fiber run itself: the engine's labels, not fiber's memory, say what a run
// has; a run's containers go when its master goes, however it went. Every
// test checks through the engine that its run left no container.
#include <doctest/doctest.h>
#include <signal.h>

#include <chrono>

#include "backend/container/run_containers.hpp"
#include "support/fiber_command.hpp"
#include "support/test_containers.hpp"
#include "support/test_image.hpp"  // TestEngine

using fiber::testing::ContainersRemoved;
using fiber::testing::eventually;
using fiber::testing::Fiber;

namespace {

const fiber::engine::Client& Engine() {
  static const fiber::engine::Client engine = fiber::testing::TestEngine();
  return engine;
}

std::vector<fiber::backend::RunContainer> ContainersOf(const std::string& run_id) {
  return fiber::testing::ContainersOf(Engine(), run_id);
}

int Running(const std::string& run_id) {
  int n = 0;
  for (const auto& c : ContainersOf(run_id)) n += c.state == "running";
  return n;
}

// fiber run --detach --backend docker of hold_pool with two container workers, once both are
// ready; its run id.
std::string StartHeld(Fiber& fiber, ContainersRemoved& cleanup) {
  auto [status, out, err] = fiber.Run(
      {"run", "--detach", "--backend", fiber::testing::TestEngineName(), built_program("hold_pool"), "2"});
  REQUIRE_MESSAGE(status == 0, err);
  cleanup.run_id = out.substr(0, out.find('\n'));
  REQUIRE(eventually([&] { return fiber.Ps()[0]["workers_ready"] == 2; }, 120));
  return cleanup.run_id;
}

}  // namespace

TEST_CASE("fiber ps lists a container run's containers, found by label") {
  Fiber fiber;
  ContainersRemoved cleanup(Engine());
  const std::string id = StartHeld(fiber, cleanup);
  CHECK(Running(id) == 2);
  const auto run = fiber.Ps()[0];
  REQUIRE(run["containers"].size() == 2);
  for (const auto& c : run["containers"]) CHECK(c["state"] == "running");
  auto [stopped, out, err] = fiber.Run({"stop", id});
  CHECK(stopped == 0);
}

TEST_CASE("the master SIGKILLed: its containers are gone within seconds") {
  Fiber fiber;
  ContainersRemoved cleanup(Engine());
  const std::string id = StartHeld(fiber, cleanup);
  const auto killed = std::chrono::steady_clock::now();
  ::kill(static_cast<pid_t>(fiber.Record(id)["master_pid"].get<long>()), SIGKILL);
  // fiber run removes them once its master has ended.
  CHECK(eventually([&] { return ContainersOf(id).empty(); }, 30));
  MESSAGE("containers gone " << std::chrono::duration<double>(std::chrono::steady_clock::now() - killed).count()
                             << " s after the master was killed");
}

TEST_CASE("launcher and master SIGKILLed: the workers lose their master and stop; "
          "ps shows the run until fiber stop removes its containers; logs --worker reads them") {
  Fiber fiber;
  ContainersRemoved cleanup(Engine());
  const std::string id = StartHeld(fiber, cleanup);
  const auto record = fiber.Record(id);
  const auto killed = std::chrono::steady_clock::now();
  ::kill(static_cast<pid_t>(record["supervisor_pid"].get<long>()), SIGKILL);
  ::kill(static_cast<pid_t>(record["master_pid"].get<long>()), SIGKILL);
  // Their heartbeat timeout (5 s) ends them; nothing removes them yet.
  CHECK(eventually([&] { return Running(id) == 0; }, 60));
  MESSAGE("workers stopped " << std::chrono::duration<double>(std::chrono::steady_clock::now() - killed).count()
                             << " s after their master was killed");
  CHECK(ContainersOf(id).size() == 2);
  auto [listed, table, table_err] = fiber.Run({"ps"});
  CHECK(table.find(id) != std::string::npos);
  CHECK(table.find("0 running") != std::string::npos);
  // From the engine while the container is there...
  auto [engine_status, engine_log, engine_err] = fiber.Run({"logs", "--worker", "w0", id});
  CHECK_MESSAGE(engine_status == 0, engine_err);
  CHECK_MESSAGE(engine_log.find("lost the master") != std::string::npos, engine_log);
  auto [stopped, out, err] = fiber.Run({"stop", id});
  CHECK(stopped == 0);
  CHECK(err.find("removed 2 containers of run " + id) != std::string::npos);
  CHECK(ContainersOf(id).empty());
  // ...and from the copy its removal left.
  auto [file_status, file_log, file_err] = fiber.Run({"logs", "--worker", "w0", id});
  CHECK_MESSAGE(file_status == 0, file_err);
  CHECK_MESSAGE(file_log.find("lost the master") != std::string::npos, file_log);
}

TEST_CASE("fiber stop ends a container run and removes its containers") {
  Fiber fiber;
  ContainersRemoved cleanup(Engine());
  const std::string id = StartHeld(fiber, cleanup);
  auto [stopped, out, err] = fiber.Run({"stop", id});
  CHECK_MESSAGE(stopped == 0, err);
  CHECK(fiber.Ps()[0]["exit_status"] == 128 + SIGTERM);
  CHECK(ContainersOf(id).empty());
}

TEST_CASE("fiber logs --worker shows a container worker's output after its container is gone") {
  Fiber fiber;
  ContainersRemoved cleanup(Engine());
  auto [status, out, err] = fiber.Run(
      {"run", "--backend", fiber::testing::TestEngineName(), built_program("chatty_pool")});
  CHECK_MESSAGE(status == 0, err);
  CHECK(out.find("result 40") != std::string::npos);
  cleanup.run_id = fiber.Ps()[0]["id"];
  CHECK(ContainersOf(cleanup.run_id).empty());
  auto [one, worker_log, one_err] = fiber.Run({"logs", "--worker", "w0", cleanup.run_id});
  CHECK_MESSAGE(one == 0, one_err);
  CHECK_MESSAGE(worker_log.find("worker says") != std::string::npos, worker_log);
}

TEST_CASE("fiber run with an image the engine lacks fails with that cause, at once") {
  Fiber fiber;
  ContainersRemoved cleanup(Engine());
  auto [status, out, err] = fiber.Run({"run", "--backend", fiber::testing::TestEngineName(), "--image", "fiber-test:absent",
                                       built_program("chatty_pool")});
  CHECK(status != 0);
  CHECK_MESSAGE(err.find("image 'fiber-test:absent' is not in the engine") != std::string::npos, err);
  cleanup.run_id = fiber.Ps()[0]["id"];
}
