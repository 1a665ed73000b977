// The fiber command line as a user first meets it, against the real binary:
// where the program's words start ("--" or the first word that is not one of
// run's options), an unknown command or option named as one with the nearest
// when close (one line, 125), usage from fiber alone and fiber help, the
// version, settings flags in the spellings users type, and a misspelt FIBER_*
// variable warned about once.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "support/fiber_command.hpp"
#include "support/temp_dir.hpp"

using fiber::testing::Fiber;
using fiber::testing::TempDir;

namespace {

// A fiber with no settings file in reach: its own config home, run from an
// empty directory.
struct Plain : Fiber {
  TempDir here;
  Plain() { env["XDG_CONFIG_HOME"] = here.path() + "/config"; }
  std::tuple<int, std::string, std::string> Do(std::vector<std::string> args) {
    return Run(std::move(args), here.path());
  }
  /// Checks that args fail as fiber's own failure, 125, with nothing on
  /// stdout and exactly the one line "fiber: error: MESSAGE" on stderr.
  void CheckRefused(std::vector<std::string> args, const std::string& message) {
    auto [status, out, err] = Do(std::move(args));
    CHECK(status == 125);
    CHECK(out.empty());
    CHECK(err == "fiber: error: " + message + "\n");
  }
};

}  // namespace

TEST_CASE("the program's words start after -- or at the first word that is not run's") {
  Plain fiber;
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"run", "-q", "--", "/bin/echo", "--flag", "a"},
           {"run", "-q", "/bin/echo", "--flag", "a"},
           {"run", "-q", "--name", "dashes", "--", "/bin/echo", "--flag", "a"}}) {
    auto [status, out, err] = fiber.Do(args);
    CHECK_MESSAGE(status == 0, err);
    CHECK(out == "--flag a\n");
  }
  // A -- after the program is the program's.
  auto [status, out, err] = fiber.Do({"run", "-q", "/bin/echo", "a", "--", "b"});
  CHECK_MESSAGE(status == 0, err);
  CHECK(out == "a -- b\n");
}

TEST_CASE("an unknown option of fiber run is named as one, status 125, not a missing program") {
  Plain fiber;
  for (const std::string bogus : {"--bogus", "--bogus=1", "-z"}) {
    auto [status, out, err] = fiber.Do({"run", bogus, "/bin/echo", "hi"});
    CHECK(status == 125);
    const std::string name = bogus.substr(0, bogus.find('='));
    CHECK_MESSAGE(err.rfind("fiber: error: unknown option '" + name + "' for 'fiber run'", 0) == 0, err);
    CHECK(err.find("not found") == std::string::npos);
    CHECK(out.empty());
  }
  auto [status, out, err] = fiber.Do({"run", "--bogus", "--", "/bin/echo", "hi"});
  CHECK(status == 125);
  CHECK(err.find("unknown option '--bogus'") != std::string::npos);
}

TEST_CASE("an unknown command says so, with the nearest command only when one is close") {
  Plain fiber;
  fiber.CheckRefused({"confg"}, "unknown command 'confg'; did you mean 'config'?");
  fiber.CheckRefused({"staus"}, "unknown command 'staus'");
  fiber.CheckRefused({"report", "x"}, "unknown command 'report'");
  // Of a command's own subcommands, that command is named.
  fiber.CheckRefused({"config", "shw"}, "unknown command 'shw' for 'fiber config'; did you mean 'show'?");
  fiber.CheckRefused({"--", "staus"}, "unknown command 'staus'");
}

TEST_CASE("an unknown option names its command, and the nearest of that command's options when close") {
  Plain fiber;
  fiber.CheckRefused({"run", "--detatch", "/bin/echo", "hi"},
                     "unknown option '--detatch' for 'fiber run'; did you mean '--detach'?");
  fiber.CheckRefused({"ps", "--al"}, "unknown option '--al' for 'fiber ps'; did you mean '--all'?");
  fiber.CheckRefused({"ps", "--al=1"}, "unknown option '--al' for 'fiber ps'; did you mean '--all'?");
  fiber.CheckRefused({"--verbos"}, "unknown option '--verbos'");
  // Named before the missing RUN it also left.
  fiber.CheckRefused({"stop", "--bogus"}, "unknown option '--bogus' for 'fiber stop'");
}

TEST_CASE("other mistakes of the command line keep their one line and 125; right commands work") {
  Plain fiber;
  fiber.CheckRefused({"stop"}, "RUN is required");
  fiber.CheckRefused({"stop", "a", "b"}, "The following argument was not expected: b");
  fiber.CheckRefused({"image"}, "A subcommand is required");
  auto [listed, table, listed_err] = fiber.Do({"ps", "-a"});
  CHECK_MESSAGE(listed == 0, listed_err);
  auto [status, out, err] = fiber.Do({"run", "-q", "/bin/echo", "hi"});
  CHECK_MESSAGE(status == 0, err);
  CHECK(out == "hi\n");
}

TEST_CASE("fiber alone and fiber help print the usage and succeed, as docker does") {
  Plain fiber;
  for (const auto& args : std::vector<std::vector<std::string>>{{}, {"help"}, {"--help"}}) {
    auto [status, out, err] = fiber.Do(args);
    CHECK(status == 0);
    CHECK(out.find("Usage: fiber") != std::string::npos);
    for (const char* command : {"run", "ps", "logs", "stop", "config", "image", "init", "version"})
      CHECK_MESSAGE(out.find(std::string("\n  ") + command + " ") != std::string::npos, command);
    CHECK(out.find("__complete") == std::string::npos);  // for completion, not users
  }
}

TEST_CASE("fiber run --help shows where PROGRAM and its ARGS go") {
  Plain fiber;
  auto [status, out, err] = fiber.Do({"run", "--help"});
  CHECK(status == 0);
  CHECK(out.find("Usage: fiber run [OPTIONS] [--] PROGRAM [ARGS...]\n") != std::string::npos);
}

TEST_CASE("fiber --version and fiber version print the project's version") {
  Plain fiber;
  for (const char* word : {"--version", "version"}) {
    auto [status, out, err] = fiber.Do({word});
    CHECK(status == 0);
    CHECK(out == "fiber " FIBER_VERSION "\n");
  }
}

TEST_CASE("settings flags take durations, sizes with B and log levels in any case") {
  Plain fiber;
  auto [status, out, err] = fiber.Do({"config", "show", "--json", "--start-timeout", "2m",
                                      "--heartbeat-interval", "500ms", "--memory", "512MiB",
                                      "--log", "DEBUG"});
  REQUIRE_MESSAGE(status == 0, err);
  const auto shown = nlohmann::json::parse(out);
  CHECK(shown["start_timeout"]["value"] == "120");
  CHECK(shown["heartbeat_interval"]["value"] == "0.5");
  CHECK(shown["memory"]["value"] == "512Mi");
  CHECK(shown["log"]["value"] == "info");
}

TEST_CASE("a misspelt FIBER_ variable is warned about once, and the command goes on") {
  Plain fiber;
  fiber.env["FIBER_BAKCEND"] = "docker";
  auto [status, out, err] = fiber.Do({"config", "show"});
  CHECK(status == 0);
  CHECK(err == "fiber: warning: FIBER_BAKCEND is not a fiber setting; did you mean FIBER_BACKEND?\n");
  auto [run_status, run_out, run_err] = fiber.Do({"run", "-q", "/bin/true"});
  CHECK(run_status == 0);
  CHECK(run_err == "fiber: warning: FIBER_BAKCEND is not a fiber setting; did you mean FIBER_BACKEND?\n");
}
