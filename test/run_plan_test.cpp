// What fiber run decides before anything starts (cli/run_plan.cpp): the
// program's words, its options' checks, the environment the program gets
// and the run's record, each from plain arguments (the program's words from a
// CLI11 command standing for run).
#include <doctest/doctest.h>

#include <algorithm>

#include "run_plan.hpp"

using namespace fiber::cli;

namespace {

// ProgramCommand of "fiber run WORDS..." (the words before the tail, parsed
// by a run with one option of its own, -d/--detach): the program's words, or
// "ERROR: ..." with *err.
std::vector<std::string> Command(const std::vector<std::string>& words, const RunTail& tail,
                                 std::string* err = nullptr) {
  CLI::App fiber{"", "fiber"};
  CLI::App* run = fiber.add_subcommand("run");
  run->prefix_command();
  run->add_flag("-d,--detach");
  std::vector<std::string> args(words.rbegin(), words.rend());  // CLI11 takes them last first
  args.push_back("run");
  fiber.parse(args);
  std::vector<std::string> command;
  std::string e;
  if (!ProgramCommand(*run, tail, &command, &e)) command = {"ERROR: " + e};
  if (err) *err = e;
  return command;
}

bool Has(const std::vector<std::string>& env, const std::string& entry) {
  return std::find(env.begin(), env.end(), entry) != env.end();
}

}  // namespace

TEST_CASE("fiber run cuts its words after -- off argv, whatever they look like") {
  char run[] = "run", fiber[] = "fiber", name[] = "--name", n[] = "x", dashes[] = "--", prog[] = "prog",
       opt[] = "--verbose";
  char* argv[] = {fiber, run, name, n, dashes, prog, opt, nullptr};
  RunTail tail;
  CHECK(CutRunTail(7, argv, &tail) == 4);
  CHECK(tail.given);
  CHECK(tail.words == std::vector<std::string>{"prog", "--verbose"});

  char ps[] = "ps";
  char* other[] = {fiber, ps, dashes, prog, nullptr};
  RunTail none;
  CHECK(CutRunTail(4, other, &none) == 4);  // only fiber run's words are cut
  CHECK_FALSE(none.given);
}

TEST_CASE("the program is the words CLI11 left, then a -- and the tail, which are the program's") {
  CHECK(Command({"prog", "a"}, {}) == std::vector<std::string>{"prog", "a"});
  CHECK(Command({}, {true, {"prog", "--x"}}) == std::vector<std::string>{"prog", "--x"});
  // A "--" after PROGRAM is the program's own.
  CHECK(Command({"prog"}, {true, {"--x"}}) == std::vector<std::string>{"prog", "--", "--x"});
}

TEST_CASE("an option fiber run does not know before PROGRAM, or no PROGRAM, is refused") {
  std::string err;
  CHECK(Command({"-d", "prog", "--detatch"}, {}) == std::vector<std::string>{"prog", "--detatch"});
  Command({"--nope=3", "prog"}, {}, &err);
  CHECK(err ==
        "unknown option '--nope' for 'fiber run' (fiber run --help lists them; a PROGRAM starting with - goes "
        "after --)");
  // One close to run's own is named instead.
  Command({"--detatch=1", "prog"}, {}, &err);
  CHECK(err == "unknown option '--detatch' for 'fiber run'; did you mean '--detach'?");
  Command({}, {}, &err);
  CHECK(err == "fiber run needs a PROGRAM to run (fiber run [OPTIONS] PROGRAM [ARGS...])");
  Command({}, {true, {}}, &err);
  CHECK(err == "fiber run needs a PROGRAM to run (fiber run [OPTIONS] PROGRAM [ARGS...])");
}

TEST_CASE("--env takes KEY=VALUE with KEY a variable name, and --grace 0 to 86400 seconds") {
  RunOptions o;
  std::string err;
  o.env = {"A=1", "B_2=x=y", "C="};
  CHECK(CheckRunOptions(o, &err));
  o.env = {"A"};
  CHECK_FALSE(CheckRunOptions(o, &err));
  CHECK(err == "--env 'A' is not of the form KEY=VALUE");
  o.env = {"=1"};
  CHECK_FALSE(CheckRunOptions(o, &err));
  CHECK(err == "--env '=1' is not of the form KEY=VALUE");
  o.env = {"1A=2"};
  CHECK_FALSE(CheckRunOptions(o, &err));
  CHECK(err == "--env '1A=2': '1A' is not a variable name (letters, digits and '_', not first a digit)");
  o.env = {};
  o.grace_seconds = 86401;
  CHECK_FALSE(CheckRunOptions(o, &err));
  CHECK(err == "--grace must be a number of seconds from 0 to 86400");
  o.grace_seconds = -1;
  CHECK_FALSE(CheckRunOptions(o, &err));
  o.grace_seconds = 0;
  CHECK(CheckRunOptions(o, &err));
}

TEST_CASE("--output takes yaml, and only with --dry-run") {
  RunOptions o;
  std::string err;
  CHECK(CheckOutput(o, &err));
  o.output = "yaml";
  CHECK_FALSE(CheckOutput(o, &err));
  CHECK(err == "--output takes yaml, with --dry-run (--dry-run -o yaml)");
  o.dry_run = true;
  CHECK(CheckOutput(o, &err));
  o.output = "json";
  CHECK_FALSE(CheckOutput(o, &err));
}

TEST_CASE("--env names join worker_env, for the program and in the run's settings") {
  RunOptions o;
  fiber::config::Settings settings;
  settings.worker_env = "HOME";
  o.env = {"A=1", "B=2"};
  JoinWorkerEnv(&o, &settings);
  CHECK(settings.worker_env == "HOME,A,B");
  CHECK(o.settings.given.at("worker_env") == "HOME,A,B");

  RunOptions none;
  fiber::config::Settings untouched;
  JoinWorkerEnv(&none, &untouched);
  CHECK(untouched.worker_env.empty());
  CHECK(none.settings.given.count("worker_env") == 0);
}

TEST_CASE("the program's environment: ours, the flags' settings as variables, the run's, --env last") {
  RunOptions o;
  o.settings.given["prefetch"] = "7";
  o.env = {"SHARED=from-env-flag", "NEW=1"};
  RunRecord run;
  run.id = "r1";
  run.dir = "/runs/r1";
  char a[] = "SHARED=ours", b[] = "FIBER_PREFETCH=2", c[] = "PATH=/bin", d[] = "FIBER_RUN_ID=stale";
  char* ours[] = {a, b, c, d, nullptr};
  const std::vector<std::string> env = ProgramEnvironment(o, run, ours);
  CHECK(Has(env, "PATH=/bin"));
  CHECK(Has(env, "FIBER_PREFETCH=7"));  // what we resolved, the program resolves
  CHECK(Has(env, "FIBER_RUN_ID=r1"));
  CHECK(Has(env, "FIBER_RUN_DIR=/runs/r1"));
  CHECK(Has(env, "SHARED=from-env-flag"));
  CHECK(Has(env, "NEW=1"));
  CHECK(env.size() == 6);
  CHECK(std::is_sorted(env.begin(), env.end()));
}

TEST_CASE("the run's record holds its program, name, backend, grace and every setting as resolved") {
  RunOptions o;
  o.name = "nightly";
  o.grace_seconds = 3;
  fiber::config::Settings settings;
  settings.backend = "slurm";
  settings.prefetch = 5;
  const RunRecord run = NewRunRecord(o, {"./prog", "a", "b"}, settings);
  CHECK(run.program == "./prog");
  CHECK(run.args == std::vector<std::string>{"a", "b"});
  CHECK(run.name == "nightly");
  CHECK(run.backend == "slurm");
  CHECK(run.grace_seconds == 3);
  CHECK(run.settings.at("prefetch") == "5");
  CHECK(run.settings.at("backend") == "slurm");
  CHECK(run.settings.size() == fiber::config::Table().size());
}
