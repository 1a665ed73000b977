// fiber image build as scripts drive it: the real fiber binary, the real
// engine, a real registry of the test's own.
#include <doctest/doctest.h>

#include <sys/stat.h>

#include <algorithm>
#include <cctype>

#include "encoding/base64.hpp"
#include "subprocess.hpp"
#include "support/docker_cli.hpp"
#include "support/probe_project.hpp"
#include "support/test_registry.hpp"

using fiber::testing::Docker;
using fiber::testing::FreePort;
using fiber::testing::ImageGuard;
using fiber::testing::ProbeProject;
using fiber::testing::TempDir;
using fiber::testing::TestRegistry;

namespace {

// True when text is prefix and then exactly n lowercase hex digits. (No
// std::regex: GCC 12 warns inside it under the sanitizers, and warnings
// are errors.)
bool PrefixThenHex(const std::string& text, const std::string& prefix, std::size_t n) {
  if (text.size() != prefix.size() + n || text.compare(0, prefix.size(), prefix) != 0) return false;
  return std::all_of(text.begin() + static_cast<std::ptrdiff_t>(prefix.size()), text.end(),
                     [](char c) { return std::isdigit(static_cast<unsigned char>(c)) || (c >= 'a' && c <= 'f'); });
}

struct Result {
  int status;
  std::string out, err;
};

// fiber run from the project's directory, with its own HOME (no one's
// credentials but the test's).
Result Fiber(const ProbeProject& project, const TempDir& home, std::vector<std::string> args) {
  args.insert(args.begin(), built_program("../cli/fiber"));
  Child c = spawn(args, {{"HOME", home.path()}, {"DOCKER_CONFIG", ""}, {"REGISTRY_AUTH_FILE", ""},
                         {"XDG_RUNTIME_DIR", ""}},
                  project.dir.path());
  std::string out = read_all(c.stdout_fd, 300);
  std::string err = read_all(c.stderr_fd, 300);
  return {wait_exit(c, 300), out, err};
}

std::string Chomp(std::string s) {
  while (!s.empty() && s.back() == '\n') s.pop_back();
  return s;
}

}  // namespace

TEST_CASE("fiber image build prints the image's reference, and on stderr what went into it") {
  ProbeProject project;
  TempDir home;
  project.dir.write("fiber.yaml", "image_files: [data]\n");
  const Result r = Fiber(project, home, {"image", "build", "bin/image_probe"});
  REQUIRE_MESSAGE(r.status == 0, r.err);
  const std::string reference = Chomp(r.out);
  ImageGuard guard(reference);
  CHECK(PrefixThenHex(reference, "localhost/fiber/image-probe:", 12));
  CHECK(r.err.find("program") != std::string::npos);
  CHECK(r.err.find(project.program) != std::string::npos);
  CHECK(r.err.find("libc.so") != std::string::npos);
  CHECK(r.err.find("listed") != std::string::npos);
  CHECK(r.err.find("loaded into the container engine") != std::string::npos);
  auto [status, out, err] = Docker({"run", "--rm", "--network", "none", reference, "data/greeting.txt"});
  CHECK_MESSAGE(status == 0, err);
  CHECK(out == "image_probe ran hello from a listed file\n");

  const Result again = Fiber(project, home, {"image", "build", "-q", "bin/image_probe"});
  CHECK(again.out == r.out);
  CHECK(again.err.empty());
}

TEST_CASE("fiber image build --push prints the pushed reference; pushed again it uploads nothing") {
  TestRegistry registry;
  REQUIRE(registry.ready());
  ProbeProject project;
  TempDir home;
  const std::string to = registry.address() + "/team/probe:v1";
  const Result first = Fiber(project, home, {"image", "build", "bin/image_probe", "--push", to});
  REQUIRE_MESSAGE(first.status == 0, first.err);
  CHECK(PrefixThenHex(Chomp(first.out), to + "@sha256:", 64));
  CHECK(first.err.find("layer sha256:") != std::string::npos);
  CHECK(first.err.find("uploaded, ") != std::string::npos);

  const Result second = Fiber(project, home, {"image", "build", "bin/image_probe", "--push", to});
  REQUIRE_MESSAGE(second.status == 0, second.err);
  CHECK(second.out == first.out);
  CHECK(second.err.find("uploaded") == std::string::npos);
  CHECK(second.err.find("already in the registry") != std::string::npos);
}

TEST_CASE("fiber image build --push logs in with ~/.docker/config.json and never prints the password") {
  TestRegistry registry("fiber", "Pa55-word-xyz");
  REQUIRE(registry.ready());
  ProbeProject project;
  TempDir home;
  const auto config = [&](const std::string& password) {
    home.write(".docker/config.json", R"({"auths": {")" + registry.address() + R"(": {"auth": ")" +
                                          fiber::Base64Encode("fiber:" + password) + R"("}}})");
  };
  const std::string to = registry.address() + "/probe";
  config("Pa55-word-xyz");
  const Result ok = Fiber(project, home, {"image", "build", "bin/image_probe", "--push", to});
  CHECK_MESSAGE(ok.status == 0, ok.err);
  CHECK((ok.out + ok.err).find("Pa55-word-xyz") == std::string::npos);

  config("Wrong-word-xyz");
  const Result refused = Fiber(project, home, {"image", "build", "bin/image_probe", "--push", to});
  CHECK(refused.status == 125);
  CHECK(refused.out.empty());
  CHECK(refused.err == "fiber: error: " + registry.address() + " refused the credentials of fiber (from " +
                           home.path() + "/.docker/config.json)\n");
}

TEST_CASE("fiber image build says in one line why it cannot") {
  ProbeProject project;
  TempDir home;
  SUBCASE("the program is not found") {
    const Result r = Fiber(project, home, {"image", "build", "no-such-program"});
    CHECK(r.status == 125);
    CHECK(r.err == "fiber: error: no-such-program: program not found\n");
  }
  SUBCASE("the program is not an ELF executable") {
    const std::string script = project.dir.write("run.sh", "#!/bin/sh\n");
    ::chmod(script.c_str(), 0755);
    const Result r = Fiber(project, home, {"image", "build", "./run.sh"});
    CHECK(r.status == 125);
    CHECK(r.err == "fiber: error: " + script + " is not an ELF executable (it is a script)\n");
  }
  SUBCASE("the registry is unreachable") {
    const std::string address = "127.0.0.1:" + std::to_string(FreePort());
    const Result r = Fiber(project, home, {"image", "build", "bin/image_probe", "--push", address + "/probe"});
    CHECK(r.status == 125);
    CHECK(r.err.find("fiber: error: cannot reach the registry " + address + ": ") == 0);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  }
  SUBCASE("the token service named for the registry's credentials is not HTTPS") {
    project.dir.write("fiber.yaml", "registry_token_service: http://auth.example/token\n");
    const std::string address = "127.0.0.1:" + std::to_string(FreePort());
    const Result r = Fiber(project, home, {"image", "build", "bin/image_probe", "--push", address + "/probe"});
    CHECK(r.status == 125);
    CHECK(r.err == "fiber: error: registry_token_service 'http://auth.example/token' is not an https:// "
                   "URL (plain http:// only on loopback): credentials go only over TLS\n");
  }
}

TEST_CASE("fiber run --build builds the project's Dockerfile and hands the program its reference") {
  ProbeProject project;
  TempDir home;
  project.dir.write("Dockerfile", "FROM scratch\nCOPY bin/image_probe /probe\n");
  const Result r = Fiber(project, home, {"run", "-q", "--build", "sh", "-c", "echo \"$FIBER_IMAGE\""});
  REQUIRE_MESSAGE(r.status == 0, r.err);
  const std::string reference = Chomp(r.out);
  ImageGuard guard(reference);
  const std::string repository = reference.substr(0, reference.rfind(':') + 1);
  CHECK(repository.rfind("localhost/fiber/fiber-test-", 0) == 0);
  CHECK(repository.size() > std::string("localhost/fiber/fiber-test-:").size());
  CHECK(PrefixThenHex(reference, repository, 12));
  auto [status, id, err] = Docker({"image", "inspect", "--format", "{{.Id}}", reference});
  CHECK_MESSAGE(status == 0, err);
  CHECK(id.find(reference.substr(reference.find(':') + 1)) == std::string("sha256:").size());
}

TEST_CASE("fiber run --build says why the Dockerfile did not build, or that there is none") {
  ProbeProject project;
  TempDir home;
  const Result none = Fiber(project, home, {"run", "--build", "true"});
  CHECK(none.status == 125);
  CHECK(none.err == "fiber: error: --build: there is no Dockerfile in " + project.dir.path() + "\n");

  project.dir.write("Dockerfile", "FROM scratch\nCOPY missing.txt /\n");
  const Result failed = Fiber(project, home, {"run", "--build", "true"});
  CHECK(failed.status == 125);
  CHECK(failed.err.find("fiber: error: the Dockerfile in " + project.dir.path() +
                        " did not build: COPY failed") == 0);
}

TEST_CASE("fiber run --image hands the program the image; with --build it is one or the other") {
  ProbeProject project;
  TempDir home;
  const Result r = Fiber(project, home, {"run", "-q", "--image", "team/train:v1", "sh", "-c",
                                         "echo \"$FIBER_IMAGE\""});
  CHECK(r.status == 0);
  CHECK(r.out == "team/train:v1\n");
  const Result both = Fiber(project, home, {"run", "--image", "team/train:v1", "--build", "true"});
  CHECK(both.status == 125);
  CHECK(both.err.find("--build and the image setting (team/train:v1) both choose the image") !=
        std::string::npos);
}

TEST_CASE("fiber run on a container backend with no image packages the program and hands it the reference") {
  ProbeProject project;
  TempDir home;
  const Result r = Fiber(project, home, {"run", "-q", "--backend", "docker", "sh", "-c", "echo \"$FIBER_IMAGE\""});
  REQUIRE_MESSAGE(r.status == 0, r.err);
  const std::string reference = Chomp(r.out);
  ImageGuard guard(reference);
  CHECK(PrefixThenHex(reference, "localhost/fiber/sh:", 12));
  auto [status, id, err] = Docker({"image", "inspect", "--format", "{{.Id}}", reference});
  CHECK_MESSAGE(status == 0, err);
}
