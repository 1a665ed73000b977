// The engine client's pieces that need no engine: the engine's error answers
// as one line, an engine that is not there, and where each engine's socket
// is looked for.
#include <doctest/doctest.h>

#include <map>

#include "config/settings.hpp"
#include "engine/engine_answer.hpp"
#include "engine/engine_client.hpp"
#include "engine/engine_socket.hpp"
#include "support/temp_dir.hpp"

namespace {

fiber::config::Getenv Env(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const char* name) -> const char* {
    const auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}

}  // namespace

TEST_CASE("an engine's error answer becomes its message") {
  fiber::http::Response r;
  r.status = 404;
  r.body = R"({"message":"No such image: x:latest"})";
  CHECK(fiber::engine::ErrorMessage(r) == "No such image: x:latest");
  r.body = "page not found\n";
  CHECK(fiber::engine::ErrorMessage(r) == "page not found");
  r.body.clear();
  CHECK(fiber::engine::ErrorMessage(r) == "HTTP status 404");
}

TEST_CASE("a call to an engine that is not there names the socket it tried") {
  fiber::testing::TempDir dir;
  const std::string socket = dir.path() + "/engine.sock";
  const fiber::engine::Client engine(socket);
  const std::string unreachable = "cannot reach the container engine at " + socket + ": ";
  std::string err;
  std::vector<nlohmann::json> containers;
  CHECK_FALSE(engine.List({"fiber.run=x"}, &containers, &err));
  CHECK_MESSAGE(err.rfind(unreachable, 0) == 0, err);
}

TEST_CASE("each engine's socket is looked for where its own CLI looks") {
  using fiber::engine::CandidateSockets;
  CHECK(CandidateSockets("docker", Env({})) == std::vector<std::string>{"/var/run/docker.sock"});
  CHECK(CandidateSockets("docker", Env({{"DOCKER_HOST", "unix:///tmp/d.sock"}})) ==
        std::vector<std::string>{"/tmp/d.sock"});
  CHECK(CandidateSockets("podman", Env({{"XDG_RUNTIME_DIR", "/run/user/7"}})) ==
        std::vector<std::string>{"/run/user/7/podman/podman.sock", "/run/podman/podman.sock"});
  CHECK(CandidateSockets("auto", Env({{"CONTAINER_HOST", "unix:///tmp/p.sock"}})) ==
        std::vector<std::string>{"/var/run/docker.sock", "/tmp/p.sock"});
  // A TCP address is not a socket fiber uses.
  CHECK(CandidateSockets("docker", Env({{"DOCKER_HOST", "tcp://10.0.0.1:2375"}})).empty());
}

TEST_CASE("no engine found names the variable that engine reads") {
  // Each variable pointing nowhere: the engine's only place to look.
  const fiber::config::Getenv nowhere = [](const char* name) -> const char* {
    const std::string_view n = name;
    return n == "DOCKER_HOST" || n == "CONTAINER_HOST" ? "unix:///nonexistent-fiber-test.sock" : nullptr;
  };
  std::string socket, err;
  CHECK_FALSE(fiber::engine::FindSocket("podman", nowhere, &socket, &err));
  CHECK(err.find("start `podman system service`, or set CONTAINER_HOST=unix://PATH") != std::string::npos);
  CHECK(err.find("DOCKER_HOST") == std::string::npos);
  CHECK_FALSE(fiber::engine::FindSocket("docker", nowhere, &socket, &err));
  CHECK(err.find("start Docker, or set DOCKER_HOST=unix://PATH") != std::string::npos);
  CHECK(err.find("CONTAINER_HOST") == std::string::npos);
}
