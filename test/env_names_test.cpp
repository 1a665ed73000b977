// --env names and values on their way into a batch script (the Slurm
// master's and workers'): a name must be a shell variable's, or fiber run
// refuses it; a value is quoted so that sh sets it as given, never runs it.
#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "config/settings.hpp"
#include "backend/slurm/run_jobs.hpp"
#include "subprocess.hpp"
#include "support/fiber_command.hpp"
#include "support/temp_dir.hpp"

using fiber::config::IsVariableName;
using fiber::backend::ShellExport;
using fiber::testing::Fiber;
using fiber::testing::TempDir;

TEST_CASE("a variable name is letters, digits and _, not starting with a digit") {
  for (const char* good : {"A", "_", "PATH", "my_var2", "_9", "x"}) CHECK_MESSAGE(IsVariableName(good), good);
  for (const char* bad : {"", "9A", "A-B", "A B", "A;B", "$(id)", "A=B", "BASH_FUNC_f%%", "é", "A\nB"})
    CHECK_MESSAGE(!IsVariableName(bad), bad);
}

TEST_CASE("a script's export sets the value as given and runs nothing of it") {
  TempDir dir;
  const std::string marker = dir.path() + "/ran";
  const std::string value = "it's $(touch " + marker + ") `touch " + marker + "` \"$HOME\"\n; touch " + marker;
  const std::string script = ShellExport("FIBER_TEST_VALUE", value) + "printf %s \"$FIBER_TEST_VALUE\"";
  Child sh = spawn({"/bin/sh", "-c", script}, {});
  const std::string out = read_all(sh.stdout_fd, 30);
  CHECK(wait_exit(sh, 30) == 0);
  CHECK(out == value);
  CHECK(!std::filesystem::exists(marker));
}

TEST_CASE("a script never exports a name that is not a variable's") {
  CHECK(ShellExport("X;touch /tmp/x", "1").empty());
  CHECK(ShellExport("$(id)", "1").empty());
  CHECK(ShellExport("GOOD", "1") == "export GOOD='1'\n");
}

TEST_CASE("fiber run refuses an --env whose name is not a variable's, naming it") {
  Fiber fiber;
  TempDir dir;
  const std::string marker = dir.path() + "/ran";
  auto [status, out, err] = fiber.Run({"run", "--env", "X;touch " + marker + "=1", "true"});
  CHECK(status != 0);
  CHECK(err.find("--env 'X;touch " + marker + "=1': 'X;touch " + marker + "' is not a variable name") !=
        std::string::npos);
  CHECK(!std::filesystem::exists(marker));
  auto [digit, digit_out, digit_err] = fiber.Run({"run", "--env", "1X=2", "true"});
  CHECK(digit != 0);
  CHECK(digit_err.find("'1X' is not a variable name") != std::string::npos);
  // No run was made of either.
  CHECK(fiber.Ps().empty());
  auto [good, good_out, good_err] = fiber.Run({"run", "--env", "GOOD_NAME=a b", "sh", "-c", "printf %s \"$GOOD_NAME\""});
  CHECK_MESSAGE(good == 0, good_err);
  CHECK(good_out == "a b");
}
