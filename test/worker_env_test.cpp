// The worker_env setting: the names of the master's variables that every
// worker gets too, whatever its backend, because every backend makes a
// worker's environment from its bootstrap (worker/bootstrap.hpp).
#include <doctest/doctest.h>

#include <map>

#include "config/resolve.hpp"
#include "config/variables.hpp"
#include "worker/bootstrap.hpp"

namespace config = fiber::config;

namespace {

config::Getenv From(const std::map<std::string, std::string>& env) {
  return [&env](const char* name) -> const char* {
    auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  };
}

bool Resolve(const std::map<std::string, std::string>& env, config::Settings* s, std::string* err) {
  config::Inputs inputs;
  inputs.getenv = From(env);
  config::Resolved resolved;
  if (!config::Resolve(inputs, &resolved, err)) return false;
  *s = resolved.settings;
  return true;
}

}  // namespace

TEST_CASE("worker_env names the master's variables a worker gets, with the master's values") {
  const std::map<std::string, std::string> master = {
      {"FIBER_WORKER_ENV", "MY_SEED,OMP_NUM_THREADS,NOT_SET"}, {"MY_SEED", "7"}, {"OMP_NUM_THREADS", "1"},
      {"OTHER", "x"}};
  config::Settings s;
  std::string err;
  REQUIRE_MESSAGE(Resolve(master, &s, &err), err);
  const auto env = config::WorkerEnvironment(s, From(master));
  CHECK(env == std::map<std::string, std::string>{{"MY_SEED", "7"}, {"OMP_NUM_THREADS", "1"}});
}

TEST_CASE("a worker's environment from its bootstrap holds worker_env's variables, never in place of fiber's") {
  fiber::worker::Bootstrap b;
  b.run_id = "r1";
  b.master = "tcp://127.0.0.1:5000";
  b.worker_id = "w1";
  b.client_secret = "secret";
  b.env = {{"MY_SEED", "7"}, {"FIBER_WORKER_ID", "w9"}};
  const auto env = fiber::worker::ToEnvironment(b);
  CHECK(env.at("MY_SEED") == "7");
  CHECK(env.at("FIBER_WORKER_ID") == "w1");
  // The container, Kubernetes and Slurm backends' form, too.
  const auto with_file = fiber::worker::ToEnvironmentWithSecretFile(b, "/run/key");
  CHECK(with_file.at("MY_SEED") == "7");
  CHECK_FALSE(with_file.count(fiber::config::kSecretVariable));
}

TEST_CASE("worker_env refuses a name that cannot be a variable's, naming it") {
  config::Settings s;
  std::string err;
  CHECK_FALSE(Resolve({{"FIBER_WORKER_ENV", "MY_SEED,1X"}}, &s, &err));
  CHECK_MESSAGE(err.find("FIBER_WORKER_ENV") != std::string::npos, err);
  CHECK_MESSAGE(err.find("'1X', which is not a variable name") != std::string::npos, err);
  CHECK_FALSE(Resolve({{"FIBER_WORKER_ENV", "A-B"}}, &s, &err));
  CHECK(config::IsVariableName("_x1"));
  CHECK_FALSE(config::IsVariableName(""));
  CHECK_FALSE(config::IsVariableName("A=B"));
}
