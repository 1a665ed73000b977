// A worker that cannot start for a reason every replacement would share (the
// dynamic loader cannot find a library: exit status 127), on this machine's
// real container engine through the real fiber command: the run ends at the
// first such worker, with one error naming the exit and the loader's words,
// and no container is started in its place.
#include <doctest/doctest.h>

#include <atomic>
#include <ctime>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "backend/labels.hpp"
#include "engine/engine_streams.hpp"
#include "support/count.hpp"
#include "support/fiber_command.hpp"
#include "support/test_containers.hpp"
#include "support/test_image.hpp"

using fiber::testing::ContainersRemoved;
using fiber::testing::Count;
using fiber::testing::Fiber;

namespace {

const fiber::engine::Client& Engine() {
  static const fiber::engine::Client engine = fiber::testing::TestEngine();
  return engine;
}

// The engine's container events for fiber's runs from the moment this is
// made until Stop: what the engine did, even to containers it has since
// removed (AutoRemove).
class RunEvents {
 public:
  RunEvents() {
    const std::string since = std::to_string(std::time(nullptr) - 1);
    thread_ = std::thread([this, since] {
      std::string err;
      (void)fiber::engine::ContainerEvents(Engine(),
          {fiber::backend::kRunLabel}, since,
          [this](const nlohmann::json& event) {
            const nlohmann::json actor = event.value("Actor", nlohmann::json::object());
            const nlohmann::json attributes = actor.value("Attributes", nlohmann::json::object());
            std::lock_guard<std::mutex> lock(mu_);
            events_.push_back({event.value("Action", ""), attributes.value(fiber::backend::kRunLabel, "")});
          },
          &stop_, &err);
    });
  }
  ~RunEvents() { Stop(); }
  void Stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }
  /// How many times the engine did action to a container of run run_id.
  int Count(const std::string& action, const std::string& run_id) {
    std::lock_guard<std::mutex> lock(mu_);
    int n = 0;
    for (const auto& [a, run] : events_) n += a == action && run == run_id;
    return n;
  }

 private:
  std::mutex mu_;
  std::vector<std::pair<std::string, std::string>> events_;  // guarded by mu_: action, run id
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace

TEST_CASE("a worker whose library is missing from its image ends the run at its first container, "
          "naming exit status 127 and the loader's words") {
  fiber::testing::TestImage image;
  image.programs = {built_program("slow_squares")};
  image.without_library = "libzmq.so.5";
  std::string reference, err;
  REQUIRE_MESSAGE(fiber::testing::BuildTestImage(Engine(), image, &reference, &err), err);

  Fiber fiber;
  ContainersRemoved cleanup(Engine());
  RunEvents events;
  // One worker and enough tasks that only a broken pool ends the run soon.
  auto [status, out, said] = fiber.Run({"run", "--backend", fiber::testing::TestEngineName(), "--image",
                                        reference, built_program("slow_squares"), "1", "4"});
  cleanup.run_id = fiber.Ps()[0]["id"];
  CHECK(status != 0);
  CHECK_MESSAGE(out.find("sum") == std::string::npos, out);
  // One error, which names the exit and says once what the loader said.
  REQUIRE_MESSAGE(Count(said, "could not start") == 1, said);
  const std::size_t at = said.find("worker w0 could not start: exit status 127");
  REQUIRE_MESSAGE(at != std::string::npos, said);
  const std::string error = said.substr(at, said.find('\n', at) - at);
  CHECK_MESSAGE(Count(error, "libzmq.so.5: cannot open shared object file") == 1, error);
  // No replacement: w1 never existed, and the engine started one container.
  CHECK_MESSAGE(said.find("w1") == std::string::npos, said);
  // The engine's own count of started containers: Docker's event stream
  // reports them with their labels; Podman's Docker-compatible stream (4.3)
  // did not report this run's containers at all (seen in test/run's Podman
  // phase), so there the worker ids above are the evidence.
  if (fiber::testing::TestEngineName() == std::string("docker")) {
    CHECK(fiber::testing::eventually([&] { return events.Count("die", cleanup.run_id) == 1; }));
    events.Stop();
    CHECK(events.Count("start", cleanup.run_id) == 1);
  }
}
