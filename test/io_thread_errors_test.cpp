// What the run's I/O thread cannot foresee (an engine's or API server's
// answer a backend did not expect, memory running out) ends the run as one
// error its pools' calls fail with; the program goes on and can report it,
// rather than ending in std::terminate.
#include <doctest/doctest.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "backend/container/container_events.hpp"
#include "fiber/async_result.hpp"
#include "support/echo_server.hpp"
#include "support/fiber_command.hpp"
#include "support/stderr_capture.hpp"
#include "support/temp_dir.hpp"
#include "support/test_master.hpp"
#include "tasks.hpp"

using fiber::testing::EchoServer;
using fiber::testing::eventually;
using fiber::testing::ScriptedBackend;
using fiber::testing::StderrCapture;
using fiber::testing::TestMaster;

TEST_CASE("an exception on the run's I/O thread fails every call of its pools with it, not the program") {
  StderrCapture log;
  TestMaster master;
  auto state = std::make_shared<ScriptedBackend::State>();
  const auto channel = master.AddPool(2, state);
  auto batch = std::make_shared<fiber::detail::Batch>(3);
  master.OnIoThread([&] {
    std::vector<std::string> calls;
    for (int i = 0; i < 3; ++i) calls.push_back(fiber::detail::encode_args(square, i));
    master.dispatcher->FindPool(channel)->Submit("square", std::move(calls), 1, batch,
                                                 fiber::master::Clock::now());
  });
  {
    std::lock_guard<std::mutex> lock(state->mu);
    state->poll_throws = "an answer the engine was not expected to give";
  }
  REQUIRE(batch->wait_all(fiber::detail::deadline_after(std::chrono::seconds(60))));
  for (std::size_t i = 0; i < 3; ++i) {
    CHECK(batch->at(i).kind == fiber::detail::Outcome::Kind::kWorkerLost);
    CHECK_MESSAGE(batch->at(i).data.find("an internal error on the run's I/O thread (") == 0,
                  batch->at(i).data);
    CHECK(batch->at(i).data.find("an answer the engine was not expected to give") != std::string::npos);
  }
  // The run is over: nothing more is taken, and no one waits on it.
  CHECK_FALSE(master.dispatcher->running());
  CHECK_FALSE(master.dispatcher->Post([] {}));
}

TEST_CASE("an engine event of the wrong types is one error of the events' watch, not the program's end") {
  fiber::testing::TempDir dir;
  const std::string socket = dir.path() + "/engine.sock";
  EchoServer engine(socket);  // its events for the run "garbage": {"Action":5,...}
  fiber::backend::ContainerEvents events(fiber::engine::Client(socket), "garbage");
  REQUIRE(eventually([&] { return !events.error().empty(); }, 60));
  CHECK_MESSAGE(events.error().rfind("an internal error (nlohmann::", 0) == 0, events.error());
  CHECK(events.error().find("type_error") != std::string::npos);
}
