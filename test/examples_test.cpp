// The examples a user copies, run whole as a user would: they must work and
// must visibly learn, with a fixed seed.
#include <doctest/doctest.h>

#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "subprocess.hpp"

namespace {

// Runs an example; its stdout.
std::string run_example(const std::vector<std::string>& argv) {
  std::vector<std::string> args = argv;
  args[0] = built_program("../examples/" + argv[0]);
  const Child child = spawn(args, {});
  REQUIRE(child.pid > 0);
  const std::string out = read_all(child.stdout_fd, 600);
  CHECK(wait_exit(child, 600) == 0);
  return out;
}

// The number after `label` on each line that has it, in order.
std::vector<double> numbers_after(const std::string& text, const std::string& label) {
  std::vector<double> values;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    const auto at = line.find(label);
    if (at != std::string::npos) values.push_back(std::stod(line.substr(at + label.size())));
  }
  return values;
}

}  // namespace

TEST_CASE("es learns CartPole: the final mean reward clearly beats the first") {
  const std::string out = run_example({"es", "15", "1"});
  MESSAGE(out);
  const auto rewards = numbers_after(out, "mean reward");
  REQUIRE(rewards.size() == 15);
  CHECK(rewards.back() > 2 * rewards.front());
  CHECK(rewards.back() > rewards.front() + 50);
}

TEST_CASE("remote_env steps environments in managers and its policy improves") {
  const std::string out = run_example({"remote_env", "8", "1"});
  MESSAGE(out);
  const auto start = numbers_after(out, "start         mean return");
  const auto best = numbers_after(out, "best");
  REQUIRE(start.size() == 1);
  REQUIRE(best.size() == 8);
  CHECK(best.back() > 2 * start.front());
}
