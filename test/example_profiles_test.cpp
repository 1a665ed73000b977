// examples/fiber.yaml, as the README shows it: the same program run where a
// profile says, through the real fiber command. Each profile resolves to its
// backend here; the docker one runs the pi example on containers of this
// machine's Docker engine (Kubernetes and Slurm need their test services,
// which this suite does not start).
#include <doctest/doctest.h>

#include <string>

#include "support/docker_cli.hpp"
#include "support/fiber_command.hpp"
#include "support/test_containers.hpp"
#include "support/test_image.hpp"  // TestEngine

using fiber::testing::ContainersRemoved;
using fiber::testing::Fiber;
using fiber::testing::ImageGuard;
using fiber::testing::ProfileRun;

namespace {

const std::string kConfig = std::string(EXAMPLES_DIR) + "/fiber.yaml";

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

  auto [status, out, err] = fiber.Run(ProfileRun(kConfig, "docker", {pi}));
  const auto runs = fiber.Ps();
  REQUIRE(runs.size() == 1);
  cleanup.run_id = runs[0]["id"].get<std::string>();
  REQUIRE_MESSAGE(status == 0, err);
  CHECK(runs[0]["backend"] == "docker");
  CHECK_MESSAGE(out.rfind("pi is about 3.14", 0) == 0, out);
  CHECK_MESSAGE(out.find("(40 tasks on 4 workers)") != std::string::npos, out);
}
