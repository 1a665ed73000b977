// A run's containers as a test sees them through the engine (by label), and
// a guard that removes whatever a test's run left, then fails the test if
// there was anything: no test may leave a container behind.
#pragma once

#include <doctest/doctest.h>

#include <functional>
#include <string>
#include <vector>

#include "backend/container/run_containers.hpp"
#include "config/settings.hpp"
#include "master/run.hpp"
#include "support/fiber_command.hpp"
#include "support/test_image.hpp"

namespace fiber::testing {

inline std::vector<backend::RunContainer> ContainersOf(const engine::Client& engine,
                                                       const std::string& run_id) {
  std::vector<backend::RunContainer> found;
  std::string err;
  REQUIRE_MESSAGE(backend::ListRunContainers(engine, run_id, &found, &err), err);
  return found;
}

/// Kills one running container of run_id (a worker's, mid-task): the run's
/// list also holds containers of workers that ended and are being removed,
/// and a running one may end before the kill reaches it.
inline void KillOneRunning(const engine::Client& engine, const std::string& run_id) {
  std::string err = "no container of run " + run_id + " was running";
  for (const backend::RunContainer& c : ContainersOf(engine, run_id))
    if (c.state == "running" && engine.Kill(c.id, &err)) return;
  FAIL(err);
}

/// An image of this test program, which is also its pools' worker.
inline std::string ImageOfThisProgram(const engine::Client& engine, TestImage image = {}) {
  image.programs = {"/proc/self/exe"};
  std::string reference, err;
  REQUIRE_MESSAGE(BuildTestImage(engine, image, &reference, &err), err);
  return reference;
}

/// This program's run, its pools' workers in containers of
/// ImageOfThisProgram on the test engine, with the settings adjust makes:
/// set before the run's first pool, which fixes its settings. Its id.
inline std::string StartContainerRun(const engine::Client& engine,
                                     const std::function<void(config::Settings&)>& adjust = {}) {
  config::Settings s = config::Current();
  s.backend = TestEngineName();
  s.image = ImageOfThisProgram(engine);
  if (adjust) adjust(s);
  config::SetCurrent(s);
  return master::Run::Get().id();
}

class ContainersRemoved {
 public:
  /// run_id may be set later, once known.
  explicit ContainersRemoved(const engine::Client& engine, std::string run_id = {})
      : engine_(engine), run_id(std::move(run_id)) {}
  ~ContainersRemoved() {
    if (run_id.empty()) return;
    // A pool's end removes its containers on the master's I/O thread:
    // give it time.
    const bool none = eventually([&] { return ContainersOf(engine_, run_id).empty(); }, 30);
    int removed = 0;
    std::string err;
    (void)backend::RemoveRunContainers(engine_, run_id, "", &removed, &err);
    CHECK_MESSAGE(none, "containers of run " << run_id << " were left behind");
  }

 private:
  const engine::Client& engine_;

 public:
  std::string run_id;
};

}  // namespace fiber::testing
