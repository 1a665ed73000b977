// Settings from the environment: accepted values, and one clear error naming
// the variable for anything else.
#include <doctest/doctest.h>

#include <map>

#include "config/settings.hpp"
#include "wire/limits.hpp"

using fiber::config::Settings;

namespace {
bool apply(const std::map<std::string, std::string>& env, Settings* s, std::string* err) {
  return fiber::config::ApplyEnvironment(
      [&](const char* name) -> const char* {
        auto it = env.find(name);
        return it == env.end() ? nullptr : it->second.c_str();
      },
      s, err);
}
}  // namespace

TEST_CASE("defaults hold when nothing is set") {
  Settings s;
  std::string err;
  REQUIRE(apply({}, &s, &err));
  CHECK(s.backend == "local");
  CHECK(s.listen_host == "127.0.0.1");
  CHECK(s.heartbeat_timeout > 2 * s.heartbeat_interval);
}

TEST_CASE("the environment overrides the defaults") {
  Settings s;
  std::string err;
  REQUIRE(apply({{"FIBER_HEARTBEAT_INTERVAL", "0.25"},
                 {"FIBER_HEARTBEAT_TIMEOUT", "3"},
                 {"FIBER_PREFETCH", "4"},
                 {"FIBER_LOG", "info"},
                 {"FIBER_LISTEN_HOST", "0.0.0.0"},
                 {"FIBER_LISTEN_PORT", "5555"}},
                &s, &err));
  CHECK(s.heartbeat_interval.count() == 250);
  CHECK(s.heartbeat_timeout.count() == 3000);
  CHECK(s.prefetch == 4);
  CHECK(s.verbose);
  CHECK(s.listen_host == "0.0.0.0");
  CHECK(s.listen_port == 5555);
}

TEST_CASE("FIBER_PREFETCH stops where a worker's credit stops") {
  Settings s;
  std::string err;
  CHECK(apply({{"FIBER_PREFETCH", std::to_string(fiber::wire::kMaxCredit)}}, &s, &err));
  CHECK(s.prefetch == static_cast<int>(fiber::wire::kMaxCredit));
  CHECK_FALSE(apply({{"FIBER_PREFETCH", std::to_string(fiber::wire::kMaxCredit + 1)}}, &s, &err));
}

TEST_CASE("bad values are refused with the variable and value named") {
  const std::map<std::string, std::pair<std::string, std::string>> cases = {
      {"FIBER_BACKEND", {"slurm-ish", "FIBER_BACKEND='slurm-ish' is not a known backend (known: local)"}},
      {"FIBER_HEARTBEAT_TIMEOUT", {"-1", "FIBER_HEARTBEAT_TIMEOUT='-1' is not a number of seconds"}},
      {"FIBER_HEARTBEAT_INTERVAL", {"1e999", "FIBER_HEARTBEAT_INTERVAL='1e999'"}},
      {"FIBER_START_TIMEOUT", {"10s", "FIBER_START_TIMEOUT='10s'"}},
      {"FIBER_PREFETCH", {"0", "FIBER_PREFETCH='0' is not a whole number from 1 to 256"}},
      {"FIBER_LISTEN_PORT", {"65536", "FIBER_LISTEN_PORT='65536' is not a whole number from 0 to 65535"}},
      {"FIBER_LOG", {"loud", "FIBER_LOG='loud' is not a log level"}},
      {"FIBER_LISTEN_HOST", {"", "FIBER_LISTEN_HOST is empty"}},
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
  CHECK(err.find("more than twice") != std::string::npos);
}
