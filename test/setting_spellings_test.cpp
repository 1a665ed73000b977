// Settings as users type them: durations with units ("10s", "500ms", "2m"),
// sizes with a B ("2GB", "512MiB"), log levels in any case, the same from a
// settings file, the environment and a flag; a tab indenting a settings
// file named as the problem; a misspelt FIBER_* variable warned about with
// the setting it likely means, and fiber's own variables left alone.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>

#include "config/config_file.hpp"
#include "config/misspelt_variables.hpp"
#include "config/resolve.hpp"
#include "support/temp_dir.hpp"

using fiber::config::Inputs;
using fiber::config::Resolved;
using fiber::config::Settings;
using fiber::testing::TempDir;
using namespace std::chrono_literals;

namespace {

enum class From { kFile, kEnvironment, kFlag };

// The settings with one setting given one way: as a key in the project's
// fiber.yaml, as its FIBER_* variable, or as its flag.
bool Given(From from, const std::string& key, const std::string& text, Settings* out,
           std::string* err) {
  TempDir dir;
  std::map<std::string, std::string> env;
  Inputs inputs;
  inputs.cwd = dir.path();
  const fiber::config::Setting* setting = fiber::config::FindSetting(key);
  REQUIRE(setting);
  if (from == From::kFile) dir.write("fiber.yaml", key + ": " + text + "\n");
  if (from == From::kEnvironment) env[setting->variable] = text;
  if (from == From::kFlag) inputs.flags[key] = text;
  inputs.getenv = [&](const char* name) -> const char* {
    auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  };
  Resolved resolved;
  if (!fiber::config::Resolve(inputs, &resolved, err)) return false;
  *out = resolved.settings;
  return true;
}

const From kEveryWay[] = {From::kFile, From::kEnvironment, From::kFlag};

std::vector<std::string> Misspelt(std::vector<std::string> entries) {
  std::vector<char*> env;
  for (std::string& e : entries) env.push_back(e.data());
  env.push_back(nullptr);
  return fiber::config::MisspeltVariables(env.data());
}

}  // namespace

TEST_CASE("durations take s, ms, m and h, and a bare number is seconds, from every source") {
  const std::map<std::string, std::chrono::milliseconds> good = {
      {"10", 10s}, {"10s", 10s}, {"0.5", 500ms}, {"500ms", 500ms}, {"2m", 2min},
      {"1h", 1h},  {"1.5s", 1500ms}, {"24h", 24h},
  };
  for (const From from : kEveryWay) {
    for (const auto& [text, expected] : good) {
      Settings s;
      std::string err;
      CHECK_MESSAGE(Given(from, "start_timeout", text, &s, &err), err);
      CHECK_MESSAGE(s.start_timeout == expected, text);
    }
    for (const std::string text : {"10 s", "ten", "5d", "1e3", "-1s", "ms", "25h"}) {
      Settings s;
      std::string err;
      CHECK_FALSE(Given(from, "start_timeout", text, &s, &err));
      CHECK_MESSAGE(err.find("='" + text + "' is not a duration") != std::string::npos, err);
    }
  }
}

TEST_CASE("a duration out of a setting's range names the range") {
  Settings s;
  std::string err;
  CHECK_FALSE(Given(From::kEnvironment, "heartbeat_timeout", "50ms", &s, &err));
  CHECK(err == "FIBER_HEARTBEAT_TIMEOUT='50ms' is not a duration from 0.1s to 24h");
}

TEST_CASE("memory sizes may end in B, as df and Docker's help write them") {
  const std::map<std::string, std::int64_t> good = {
      {"512MiB", 512}, {"2GiB", 2048}, {"1TiB", 1 << 20}, {"2gb", 2048}, {"512mb", 512},
      {"2GB", 1908},   {"500MB", 477}, {"2G", 1908},     {"2Gi", 2048},
  };
  for (const From from : kEveryWay) {
    for (const auto& [text, mib] : good) {
      Settings s;
      std::string err;
      CHECK_MESSAGE(Given(from, "memory", text, &s, &err), err);
      CHECK_MESSAGE(s.memory_mib == mib, text);
    }
  }
  Settings s;
  std::string err;
  CHECK_FALSE(Given(From::kFlag, "memory", "2GBi", &s, &err));
  CHECK(err == "--memory='2GBi' is not a size such as 512Mi, 2Gi, 2GB or 256m (a bare number is MiB)");
}

TEST_CASE("the log level is read in any case, and debug is the most fiber tells") {
  for (const From from : kEveryWay) {
    for (const std::string text : {"debug", "DEBUG", "Info", "info"}) {
      Settings s;
      std::string err;
      CHECK_MESSAGE(Given(from, "log", text, &s, &err), err);
      CHECK_MESSAGE(s.verbose, text);
    }
    Settings s;
    std::string err;
    CHECK_MESSAGE(Given(from, "log", "WARNING", &s, &err), err);
    CHECK_FALSE(s.verbose);
    CHECK_FALSE(Given(from, "log", "trace", &s, &err));
    CHECK(err.find("'trace' is not a log level (debug, info or warning)") != std::string::npos);
  }
}

TEST_CASE("a tab indenting a settings file is named as the problem, with its line") {
  TempDir dir;
  fiber::config::ConfigFile file;
  std::string err;
  const std::string path = dir.write("fiber.yaml", "backend: local\nprofiles:\n\tbig:\n    cpu: 4\n");
  CHECK_FALSE(fiber::config::ReadConfigFile(path, &file, &err));
  CHECK(err == path + ":3: a tab indents this line; YAML allows only spaces");
  const std::string after_spaces = dir.write("spaces.yaml", "profiles:\n  big:\n  \t cpu: 4\n");
  CHECK_FALSE(fiber::config::ReadConfigFile(after_spaces, &file, &err));
  CHECK(err == after_spaces + ":3: a tab indents this line; YAML allows only spaces");
  // yaml-cpp refuses a tab on a blank or comment line too.
  const std::string blank = dir.write("blank.yaml", "gpu: 1\n\t\ncpu: 2\n");
  CHECK_FALSE(fiber::config::ReadConfigFile(blank, &file, &err));
  CHECK(err == blank + ":2: a tab indents this line; YAML allows only spaces");
  const std::string comment = dir.write("comment.yaml", "gpu: 1\n\t# a note\n");
  CHECK_FALSE(fiber::config::ReadConfigFile(comment, &file, &err));
  CHECK(err == comment + ":2: a tab indents this line; YAML allows only spaces");
}

TEST_CASE("a tab after a line's text is no error") {
  TempDir dir;
  fiber::config::ConfigFile file;
  std::string err;
  const std::string path = dir.write("fiber.yaml", "prefetch:\t4\ngpu: 1\t# one\n");
  CHECK_MESSAGE(fiber::config::ReadConfigFile(path, &file, &err), err);
  CHECK(file.values.size() == 2);
}

TEST_CASE("a misspelt FIBER_ variable is warned about with the setting it likely means") {
  CHECK(Misspelt({"FIBER_BAKCEND=docker"}) ==
        std::vector<std::string>{"FIBER_BAKCEND is not a fiber setting; did you mean FIBER_BACKEND?"});
  CHECK(Misspelt({"FIBER_HEARTBEAT_TIMOUT=3", "PATH=/bin"}) ==
        std::vector<std::string>{
            "FIBER_HEARTBEAT_TIMOUT is not a fiber setting; did you mean FIBER_HEARTBEAT_TIMEOUT?"});
  CHECK(Misspelt({"FIBER_CONFGI=x.yaml"}) ==
        std::vector<std::string>{"FIBER_CONFGI is not a fiber setting; did you mean FIBER_CONFIG?"});
}

TEST_CASE("fiber's own variables, and FIBER_ names far from any setting, are not warned about") {
  std::vector<std::string> env;
  for (const std::string& name : fiber::config::KnownVariables()) env.push_back(name + "=1");
  CHECK(Misspelt(env).empty());
  // A worker's bootstrap and the run's variables are among them.
  for (const char* name : {"FIBER_WORKER_ID", "FIBER_CLIENT_KEY", "FIBER_CLIENT_KEY_FILE", "FIBER_RUN_ID",
                           "FIBER_RUN_DIR", "FIBER_RUN_KEY_FILE", "FIBER_ROLE", "FIBER_MASTER_ENDPOINT",
                           "FIBER_PARENT_PID", "FIBER_FORK_SERVER_FD", "FIBER_CONFIG"}) {
    const auto known = fiber::config::KnownVariables();
    CHECK_MESSAGE(std::find(known.begin(), known.end(), name) != known.end(), name);
  }
  CHECK(Misspelt({"FIBER_PREFIX=/usr", "FIBER_SOURCE=/src", "FIBER_TEST_ENGINE=docker", "FIBER_=1"}).empty());
}
