// A value given to a setting, refused with the source that gave it and the
// value named: one clear error for each setting's variable, and for values
// that break a rule between settings.
#include <doctest/doctest.h>

#include <map>

#include "config/assignment.hpp"
#include "support/environment_settings.hpp"

using fiber::config::Settings;
using fiber::testing::apply;

TEST_CASE("bad values are refused with the variable and value named") {
  const std::map<std::string, std::pair<std::string, std::string>> cases = {
      {"FIBER_BACKEND", {"slurm-ish", "FIBER_BACKEND='slurm-ish' is not a known backend (known: local, docker, podman, container, kubernetes, slurm)"}},
      {"FIBER_TIME_LIMIT", {"1 hour", "FIBER_TIME_LIMIT='1 hour' is not a Slurm time limit"}},
      {"FIBER_SBATCH_OPTIONS", {"--exclusive gpu", "FIBER_SBATCH_OPTIONS='--exclusive gpu' holds 'gpu', which is not an sbatch option"}},
      {"FIBER_ARRAY_LIMIT", {"-1", "FIBER_ARRAY_LIMIT='-1' is not a whole number"}},
      {"FIBER_HEARTBEAT_TIMEOUT", {"-1", "FIBER_HEARTBEAT_TIMEOUT='-1' is not a duration"}},
      {"FIBER_HEARTBEAT_INTERVAL", {"1e999", "FIBER_HEARTBEAT_INTERVAL='1e999'"}},
      {"FIBER_START_TIMEOUT", {"10 s", "FIBER_START_TIMEOUT='10 s'"}},
      {"FIBER_PREFETCH", {"0", "FIBER_PREFETCH='0' is not a whole number from 1 to 256"}},
      {"FIBER_LISTEN_PORT", {"65536", "FIBER_LISTEN_PORT='65536' is not a whole number from 0 to 65535"}},
      {"FIBER_LOG", {"loud", "FIBER_LOG='loud' is not a log level"}},
      {"FIBER_LISTEN_HOST", {"", "FIBER_LISTEN_HOST is empty"}},
      {"FIBER_WORKERS_PER_JOB", {"0", "FIBER_WORKERS_PER_JOB='0' is not a whole number from 1 to 4096"}},
  };
  for (const auto& [var, expect] : cases) {
    Settings s;
    std::string err;
    CHECK_FALSE(apply({{var, expect.first}}, &s, &err));
    CHECK_MESSAGE(err.rfind(expect.second, 0) == 0, err);
  }
  Settings s;
  std::string err;
  CHECK_FALSE(apply({{"FIBER_HEARTBEAT_INTERVAL", "2"}, {"FIBER_HEARTBEAT_TIMEOUT", "3"}}, &s, &err));
  CHECK(err == "heartbeat_timeout (3 s, from FIBER_HEARTBEAT_TIMEOUT) must be more than twice "
               "heartbeat_interval (2 s, from FIBER_HEARTBEAT_INTERVAL)");
}

TEST_CASE("a misspelt value of a setting with choices is refused with the likely choice") {
  const std::map<std::string, std::pair<std::string, std::string>> close = {
      {"FIBER_BACKEND", {"dokcer", "docker"}},
      {"FIBER_ENGINE", {"podmn", "podman"}},
      {"FIBER_MASTER", {"clustr", "cluster"}},
      {"FIBER_LOG", {"warnign", "warning"}},
      {"FIBER_HOST_NETWORK", {"fals", "false"}},
  };
  for (const auto& [var, typo] : close) {
    Settings s;
    std::string err;
    CHECK_FALSE(apply({{var, typo.first}}, &s, &err));
    const std::string tail = "; did you mean '" + typo.second + "'?";
    CHECK_MESSAGE(err.rfind(var + "='" + typo.first + "' is not ", 0) == 0, err);
    CHECK_MESSAGE(err.size() > tail.size(), err);
    CHECK_MESSAGE(err.compare(err.size() - tail.size(), tail.size(), tail) == 0, err);
  }
  // Far from every choice, or a setting without choices: no guess.
  const std::map<std::string, std::string> far = {
      {"FIBER_BACKEND", "mainframe"}, {"FIBER_ENGINE", "rkt"}, {"FIBER_LOG", "loud"},
      {"FIBER_MASTER", "pod"}, {"FIBER_TIME_LIMIT", "1 hour"}};
  for (const auto& [var, text] : far) {
    Settings s;
    std::string err;
    CHECK_FALSE(apply({{var, text}}, &s, &err));
    CHECK_MESSAGE(err.find("did you mean") == std::string::npos, err);
  }
  Settings s;
  std::string err;
  CHECK_FALSE(apply({{"FIBER_BACKEND", "dokcer"}}, &s, &err));
  CHECK(err == "FIBER_BACKEND='dokcer' is not a known backend (known: local, docker, podman, container, "
               "kubernetes, slurm); did you mean 'docker'?");
}
