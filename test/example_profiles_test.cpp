// examples/fiber.yaml, as the README shows it: the same program run where a
// profile says, through the real fiber command. Each profile resolves to its
// backend here; each runs the pi example: the docker one on containers of
// this machine's Docker engine, the kubernetes one on pods of test/cluster
// (doctest suite and meson suite "kubernetes") and the slurm one on jobs of
// test/slurm (suite "slurm"), what only the user knows of their cluster in
// their own settings file, as the example's header tells them.
#include <doctest/doctest.h>

#include <string>

#include "support/docker_cli.hpp"
#include "support/fiber_command.hpp"
#include "support/test_cluster.hpp"
#include "support/test_containers.hpp"
#include "support/test_image.hpp"  // TestEngine
#include "support/test_slurm.hpp"

using fiber::testing::ContainersRemoved;
using fiber::testing::Fiber;
using fiber::testing::ImageGuard;
using fiber::testing::ProfileRun;

namespace {

const std::string kConfig = std::string(EXAMPLES_DIR) + "/fiber.yaml";

const std::string kPiSays = "pi is about 3.14";
const std::string kPiCounts = "(40 tasks on 4 workers)";

// The user's own settings file (XDG_CONFIG_HOME/fiber/config.yaml), holding
// text: where the example's header says a user's cluster values go.
void WriteUserSettings(Fiber& fiber, const std::string& text) {
  fiber.env["XDG_CONFIG_HOME"] = fiber.state.dir("config");
  fiber.state.write("config/fiber/config.yaml", text);
}

// fiber run --config examples/fiber.yaml --profile profile of pi, as the
// README shows it: pi's promised line, exit status 0, no error; the run's
// record, for what it left.
nlohmann::json RunPi(Fiber& fiber, const std::string& profile) {
  auto [status, out, err] = fiber.Run(ProfileRun(kConfig, profile, {built_program("../examples/pi")}));
  CHECK_MESSAGE(status == 0, err);
  CHECK_MESSAGE(out.rfind(kPiSays, 0) == 0, out);
  CHECK_MESSAGE(out.find(kPiCounts) != std::string::npos, out);
  CHECK_MESSAGE(err.find("fiber: error") == std::string::npos, err);
  const auto runs = fiber.Ps();
  REQUIRE(runs.size() == 1);
  CHECK(runs[0]["backend"] == profile);
  return runs[0];
}

const fiber::engine::Client& Engine() {
  static const fiber::engine::Client engine = fiber::testing::TestEngine();
  return engine;
}

}  // namespace

TEST_CASE("each profile of examples/fiber.yaml chooses its backend") {
  Fiber fiber;
  for (const std::string profile : {"docker", "kubernetes", "slurm"}) {
    CAPTURE(profile);
    auto [status, out, err] =
        fiber.Run({"config", "show", "--json", "--config", kConfig, "--profile", profile});
    REQUIRE_MESSAGE(status == 0, err);
    const auto shown = nlohmann::json::parse(out);
    CHECK(shown["backend"]["value"] == profile);
    CHECK(shown["backend"]["source"].get<std::string>().find(kConfig) != std::string::npos);
  }
}

TEST_CASE("fiber run --profile docker runs the pi example on Docker workers") {
  Fiber fiber;
  const std::string pi = built_program("../examples/pi");
  // The image fiber run packages pi into: the same program gives the same
  // reference, so building it first names what the test must remove.
  auto [built, reference, build_err] =
      fiber.Run({"image", "build", "-q", "--config", kConfig, "--profile", "docker", pi});
  REQUIRE_MESSAGE(built == 0, build_err);
  ImageGuard image(reference.substr(0, reference.find('\n')));
  ContainersRemoved cleanup(Engine());
  cleanup.run_id = RunPi(fiber, "docker")["id"].get<std::string>();
}

TEST_CASE("fiber run --profile kubernetes runs the pi example on pods, the cluster's values the user's own" *
          doctest::test_suite("kubernetes")) {
  Fiber fiber;
  // What a user of test/cluster keeps: its kubeconfig (whose context names
  // the namespace), its registry, and where pods reach a master here (on
  // the bridge of its test hosts, or on 127.0.0.1 from the node's network).
  WriteUserSettings(fiber, "profiles:\n  kubernetes:\n    kubeconfig: " +
                               fiber::testing::ClusterValue("FIBER_CLUSTER_FIBER_KUBECONFIG") +
                               "\n    registry: " + fiber::testing::ClusterValue("FIBER_CLUSTER_REGISTRY") +
                               "/fiber-test\n    listen_host: " +
                               fiber::testing::ClusterValue("FIBER_CLUSTER_MASTER_HOST") +
                               "\n    host_network: " + fiber::testing::ClusterValue("FIBER_CLUSTER_HOST_NETWORK") +
                               "\n");
  RunPi(fiber, "kubernetes");
  // None left, as the cluster lists them (the last go with the run's Secret).
  CHECK(fiber::testing::eventually([&] { return fiber.Ps()[0]["pods"] == nlohmann::json::array(); }, 60));
}

TEST_CASE("fiber run --profile slurm runs the pi example on Slurm jobs, the partition the user's own" *
          doctest::test_suite("slurm")) {
  Fiber fiber;
  // SLURM_CONF, as a user of test/slurm has it set, reaches fiber run too.
  fiber.env["SLURM_CONF"] = fiber::testing::SlurmValue("SLURM_CONF");
  WriteUserSettings(fiber, "profiles:\n  slurm:\n    partition: " +
                               fiber::testing::SlurmValue("FIBER_SLURM_PARTITION") + "\n");
  const nlohmann::json run = RunPi(fiber, "slurm");
  CHECK(fiber::testing::eventually([&] { return fiber::testing::LiveJobs(run["id"]) == 0; }));
}
