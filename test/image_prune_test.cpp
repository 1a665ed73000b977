// fiber image prune against the real engine: the images fiber packaged of a
// program go once no container uses them. Each case prunes only its own
// program's images (fiber image prune PROGRAM), so the images of other
// tests sharing the engine stay.
#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>

#include "subprocess.hpp"
#include "support/docker_cli.hpp"
#include "support/fiber_command.hpp"
#include "support/probe_project.hpp"

using fiber::testing::Docker;
using fiber::testing::Fiber;
using fiber::testing::ImageGuard;
using fiber::testing::ProbeProject;

TEST_CASE("fiber image prune removes a program's packaged image once no container uses it") {
  ProbeProject project;
  // A name of this test's own, so that only its images are pruned.
  const std::string program = project.dir.path() + "/bin/prune-probe-" + std::to_string(::getpid());
  std::filesystem::rename(project.program, program);
  Fiber fiber;
  auto [built, reference, build_err] = fiber.Run({"image", "build", "-q", program});
  REQUIRE_MESSAGE(built == 0, build_err);
  reference.pop_back();  // the newline
  ImageGuard guard(reference);
  REQUIRE(reference.rfind("localhost/fiber/prune-probe-", 0) == 0);

  auto [created, container, create_err] = Docker({"create", reference});
  REQUIRE_MESSAGE(created == 0, create_err);
  container.pop_back();
  auto [kept, kept_out, kept_err] = fiber.Run({"image", "prune", program});
  CHECK_MESSAGE(kept == 0, kept_err);
  CHECK(kept_out.find(reference) == std::string::npos);
  CHECK(std::get<0>(Docker({"image", "inspect", reference})) == 0);

  REQUIRE(std::get<0>(Docker({"rm", container})) == 0);
  auto [pruned, pruned_out, pruned_err] = fiber.Run({"image", "prune", program});
  CHECK_MESSAGE(pruned == 0, pruned_err);
  CHECK(pruned_out.find(reference + "\n") != std::string::npos);
  CHECK(pruned_out.find("Total reclaimed space: ") != std::string::npos);
  CHECK(pruned_out.find("Total reclaimed space: 0 B") == std::string::npos);
  CHECK(std::get<0>(Docker({"image", "inspect", reference})) != 0);
}
