// The run's backend shared by its pools as worker groups: each pool starts
// and kills workers through the one backend and sees only its own workers'
// ends; a pool that goes takes only its own workers with it.
#include <doctest/doctest.h>

#include <algorithm>
#include <memory>

#include "backend/worker_group.hpp"
#include "support/scripted_backend.hpp"

namespace {

using fiber::backend::Backend;
using fiber::backend::Exit;
using fiber::backend::Launch;
using fiber::backend::WorkerGroups;
using fiber::testing::ScriptedBackend;

Launch Worker(const std::string& id) {
  Launch launch;
  launch.bootstrap.worker_id = id;
  return launch;
}

std::vector<std::string> Ids(const std::vector<Exit>& exits) { return fiber::testing::IdsOf(exits); }

struct Run {
  std::shared_ptr<ScriptedBackend::State> state = std::make_shared<ScriptedBackend::State>();
  std::shared_ptr<WorkerGroups> groups =
      std::make_shared<WorkerGroups>(std::make_unique<ScriptedBackend>(state));
};

}  // namespace

TEST_CASE("each pool sees the ends of its own workers only, whichever pool polls first") {
  Run run;
  std::unique_ptr<Backend> a = run.groups->NewGroup(), b = run.groups->NewGroup();
  std::string err;
  REQUIRE(a->Start(Worker("w0"), &err));
  REQUIRE(b->StartMany({Worker("w1"), Worker("w2")}, &err));
  CHECK(run.state->launches.size() == 3);  // one backend started all three
  ScriptedBackend::Crash(*run.state, "w0", "exit status 1", 1);
  ScriptedBackend::Crash(*run.state, "w2", "exit status 2", 2);
  CHECK(Ids(b->Poll()) == std::vector<std::string>{"w2"});
  const std::vector<Exit> of_a = a->Poll();
  REQUIRE(of_a.size() == 1);
  CHECK(of_a[0].worker_id == "w0");
  CHECK(of_a[0].status == fiber::ExitStatus::Exited(1));
  CHECK(a->Poll().empty());  // each end once
  CHECK(b->Poll().empty());
}

TEST_CASE("a pool kills only its own workers, and a worker of another pool's id is not its to kill") {
  Run run;
  std::unique_ptr<Backend> a = run.groups->NewGroup(), b = run.groups->NewGroup();
  std::string err;
  REQUIRE(a->Start(Worker("w0"), &err));
  REQUIRE(b->Start(Worker("w1"), &err));
  a->Kill("w1");
  CHECK(run.state->killed.empty());
  a->KillAll();
  CHECK(run.state->killed == std::vector<std::string>{"w0"});
  CHECK(Ids(a->Poll()) == std::vector<std::string>{"w0"});
  CHECK(b->Poll().empty());
}

TEST_CASE("a pool that goes kills its workers; their ends reach no other pool") {
  Run run;
  std::unique_ptr<Backend> a = run.groups->NewGroup(), b = run.groups->NewGroup();
  std::string err;
  REQUIRE(a->StartMany({Worker("w0"), Worker("w1")}, &err));
  REQUIRE(b->Start(Worker("w2"), &err));
  a.reset();
  std::vector<std::string> killed = run.state->killed;
  std::sort(killed.begin(), killed.end());
  CHECK(killed == std::vector<std::string>{"w0", "w1"});
  CHECK(b->Poll().empty());
  ScriptedBackend::Crash(*run.state, "w2", "killed by SIGKILL");
  CHECK(Ids(b->Poll()) == std::vector<std::string>{"w2"});
}
