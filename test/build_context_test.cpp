// fiber run --build sends the engine the build context the Docker CLI would:
// the project less what its .dockerignore lists, and says on a terminal
// what it holds before sending it. The real fiber binary, the real engine.
#include <doctest/doctest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "subprocess.hpp"
#include "support/docker_cli.hpp"
#include "support/fiber_command.hpp"
#include "support/temp_dir.hpp"

using fiber::testing::Docker;
using fiber::testing::ImageGuard;
using fiber::testing::TempDir;

namespace {

bool Contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// The paths in an image's filesystem, as a container made from it exports it.
std::vector<std::string> ImageFiles(const std::string& reference, const TempDir& scratch) {
  auto [created, id, create_err] = Docker({"create", reference, "/none"});
  REQUIRE_MESSAGE(created == 0, create_err);
  id.erase(id.find_last_not_of('\n') + 1);
  const std::string archive = scratch.path() + "/fs.tar";
  auto [exported, out, export_err] = Docker({"export", "-o", archive, id});
  CHECK_MESSAGE(exported == 0, export_err);
  (void)Docker({"rm", id});
  Child tar = spawn({"/usr/bin/env", "tar", "-tf", archive}, {}, "");
  const std::string listing = read_all(tar.stdout_fd, 60);
  REQUIRE(wait_exit(tar, 60) == 0);
  std::vector<std::string> files;
  std::istringstream lines(listing);
  for (std::string line; std::getline(lines, line);) {
    while (!line.empty() && line.back() == '/') line.pop_back();
    files.push_back(line);
  }
  return files;
}

bool Has(const std::vector<std::string>& files, const std::string& path) {
  return std::find(files.begin(), files.end(), path) != files.end();
}

}  // namespace

TEST_CASE("fiber run --build leaves out what .dockerignore lists, and says what it sends") {
  TempDir project, home, scratch;
  // The Dockerfile is listed too: the engine still gets it, as from docker
  // build, or nothing would build.
  const std::string dockerfile = "FROM scratch\nCOPY . /ctx/\n";
  const std::string ignore = "# kept home\n.env\n/secrets/\nDockerfile\n";
  const std::string source = "int main() {}\n";
  const std::string example = "API_TOKEN=\n";
  project.write("Dockerfile", dockerfile);
  project.write(".dockerignore", ignore);
  project.write(".env", "API_TOKEN=do-not-ship\n");
  project.write("secrets/key.pem", "-----BEGIN PRIVATE KEY-----\n");
  project.write("secrets/deeper/more.pem", "more\n");
  project.write("src/main.cpp", source);
  project.write("notes/.env.example", example);
  const std::size_t sent_bytes = dockerfile.size() + ignore.size() + source.size() + example.size();

  fiber::testing::Fiber fiber;
  fiber.env["HOME"] = home.path();
  fiber.env["DOCKER_CONFIG"] = "";
  auto [status, reference, shown] =
      fiber.RunOnTerminal({"run", "--build", "sh", "-c", "echo \"$FIBER_IMAGE\""}, project.path());
  reference.erase(reference.find_last_not_of('\n') + 1);
  REQUIRE_MESSAGE(status == 0, shown);
  REQUIRE(!reference.empty());
  ImageGuard guard(reference);

  // Before the build's steps: what the context holds.
  const std::string told = "fiber: sending the build context: 4 files, " + std::to_string(sent_bytes) +
                           " B (2 left out by .dockerignore)";
  CHECK_MESSAGE(Contains(shown, told), shown);
  CHECK(shown.find(told) < shown.find("Step 1/2"));

  const std::vector<std::string> files = ImageFiles(reference, scratch);
  std::string listed;
  for (const auto& f : files) listed += f + "\n";
  INFO("the image holds:\n", listed);
  CHECK(Has(files, "ctx/src/main.cpp"));
  CHECK(Has(files, "ctx/notes/.env.example"));
  CHECK_FALSE(Has(files, "ctx/.env"));
  CHECK_FALSE(Has(files, "ctx/secrets"));
  CHECK_FALSE(Has(files, "ctx/secrets/key.pem"));
  CHECK_FALSE(Has(files, "ctx/secrets/deeper/more.pem"));
}

TEST_CASE("fiber run --build refuses a malformed .dockerignore, naming its line") {
  TempDir project, home;
  project.write("Dockerfile", "FROM scratch\nCOPY . /ctx/\n");
  project.write(".dockerignore", ".env\nkeys/[abc\n");
  fiber::testing::Fiber fiber;
  fiber.env["HOME"] = home.path();
  auto [status, out, err] = fiber.Run({"run", "--build", "true"}, project.path());
  CHECK(status == 125);
  CHECK(err == "fiber: error: " + project.path() +
                   "/.dockerignore line 2: the pattern keys/[abc is malformed: its [ has no closing ]\n");
}
