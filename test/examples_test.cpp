// The examples a user copies, run whole as a user would: they must work,
// print what their header comment promises, and visibly learn, with a fixed
// seed. One test case per example.
#include <doctest/doctest.h>

#include <cstdio>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "subprocess.hpp"

namespace {

// Runs an example; its stdout, and its stderr in *err when given.
std::string run_example(const std::vector<std::string>& argv, std::string* err = nullptr) {
  std::vector<std::string> args = argv;
  args[0] = built_program("../examples/" + argv[0]);
  const Child child = spawn(args, {});
  REQUIRE(child.pid > 0);
  const std::string out = read_all(child.stdout_fd, 600);
  if (err) *err = read_all(child.stderr_fd, 600);
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

// The lines of text that hold part.
std::vector<std::string> lines_with(const std::string& text, const std::string& part) {
  std::vector<std::string> found;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);)
    if (line.find(part) != std::string::npos) found.push_back(line);
  return found;
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
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

TEST_CASE("impala: actors' trajectories through a bounded queue, weights broadcast by share; it learns") {
  std::string err;
  const std::string out = run_example({"impala", "100", "1"}, &err);
  MESSAGE(out);
  CHECK_MESSAGE(err.empty(), err);
  const auto returns = numbers_after(out, "mean return");
  REQUIRE(returns.size() == 100);
  CHECK(returns.front() < 50);  // the first policy: a coin flip
  // Learning is noisy (which actor's trajectories come first is the
  // scheduler's choice): the last ten updates' mean returns ranged from 96
  // (under the sanitizers) to 340 against 32 to 45 for the first ten, so
  // "it learns" is the last ten at twice the first ten or more.
  double first = 0, last = 0;
  for (std::size_t i = 0; i < 10; ++i) first += returns[i] / 10;
  for (std::size_t i = returns.size() - 10; i < returns.size(); ++i) last += returns[i] / 10;
  CHECK_MESSAGE(last > 2 * first, "first ten updates' mean return " << first << ", last ten " << last);
  CHECK(numbers_after(out, "frames/s").back() > 0);
}

TEST_CASE("pool_map: map's sum, then every imap_unordered result once with its progress") {
  const std::string out = run_example({"pool_map"});
  MESSAGE(out);
  CHECK(has(out, "map: sum of squares 2870\n"));  // 1..20
  const auto results = numbers_after(out, "result ");
  REQUIRE(results.size() == 20);
  std::set<double> squares(results.begin(), results.end());
  for (int x = 1; x <= 20; ++x) CHECK(squares.count(x * x) == 1);
  for (int k = 1; k <= 20; ++k) CHECK(has(out, "(" + std::to_string(k) + "/20)\n"));
  CHECK(has(out, "imap_unordered: sum of squares 2870\n"));
  CHECK(has(out, "done 20/20\n"));
}

TEST_CASE("errors: a task's exception arrives with its type and message; a task that kills its worker "
          "fails alone") {
  const std::string out = run_example({"errors"});
  MESSAGE(out);
  CHECK(has(out, "task threw std::invalid_argument: 7 is odd\n"));
  CHECK(has(out, "checked_half(8) = 4\n"));
  // How a lost task is reported may change; that it fails as a fiber::Error
  // (WorkerLost today), alone, may not.
  const auto failed = lines_with(out, " failed: ");
  REQUIRE(failed.size() == 1);
  CHECK(failed[0].rfind("task 13 failed: ", 0) == 0);
  CHECK(has(out, "sum of the others 62\n"));  // 10+11+12+14+15
}

TEST_CASE("process_queue: three processes' items all arrive on one queue, and each exits 0") {
  std::string err;
  const std::string out = run_example({"process_queue"}, &err);
  MESSAGE(out);
  CHECK_MESSAGE(!has(err, "lost"), err);  // a Process whose call returned ended as asked
  const auto got = lines_with(out, "got ");
  REQUIRE(got.size() == 12);
  std::set<std::string> producers;
  for (const auto& line : got) producers.insert(line.substr(line.find(" from ") + 6));
  CHECK(producers.size() == 3);
  CHECK(lines_with(out, " exited with 0").size() == 3);
  CHECK(has(out, "sum 506\n"));  // 0..11
}

TEST_CASE("locks: every task counted under the Lock, at most two holding the Semaphore at once") {
  std::string err;
  const std::string out = run_example({"locks"}, &err);
  MESSAGE(out);
  CHECK(has(out, "is the event set? no\n"));
  CHECK(has(out, "tasks started: 8\n"));  // no update lost
  const bool bounded = has(out, "at once: 1 of 2\n") || has(out, "at once: 2 of 2\n");
  CHECK_MESSAGE(bounded, out);
}

TEST_CASE("pipe: every message comes back shouted, and the other end ends when this one closes") {
  std::string err;
  const std::string out = run_example({"pipe"}, &err);
  MESSAGE(out);
  CHECK_MESSAGE(!has(err, "lost"), err);
  CHECK(has(out, "sent hello, got HELLO!\n"));
  CHECK(has(out, "sent from, got FROM!\n"));
  CHECK(has(out, "sent the, got THE!\n"));
  CHECK(has(out, "sent master, got MASTER!\n"));
  CHECK(has(out, "echo exited with 0\n"));
}

TEST_CASE("elastic_pool: grows past its minimum under a burst, within its maximum, and back when idle") {
  const std::string out = run_example({"elastic_pool"});
  MESSAGE(out);
  const auto grew = numbers_after(out, "grew to ");
  REQUIRE(grew.size() == 1);
  CHECK(grew[0] > 1);
  CHECK(grew[0] <= 4);
  CHECK(has(out, " workers, sum 1240\n"));  // 0..15
  CHECK(has(out, "back to 1 worker\n"));
}

TEST_CASE("central_inference: every actor gets the right action for every step, in order, from "
          "batches of several observations") {
  const int actors = 6, steps = 300;
  const std::string out =
      run_example({"central_inference", std::to_string(actors), std::to_string(steps)});
  MESSAGE(out);
  const auto reports = lines_with(out, "actor ");
  REQUIRE(reports.size() == actors);
  std::set<std::string> seen;
  for (const auto& line : reports) {
    seen.insert(line.substr(0, line.find(':')));
    CHECK(line.substr(line.find(':')) ==
          ": 300 steps, 300 answered, 300 in order, 300 right");  // each checks its own policy
  }
  CHECK(seen.size() == actors);
  const auto largest = numbers_after(out, ", largest ");
  REQUIRE(largest.size() == 1);
  CHECK(largest[0] > 1);  // the master served several actors with one get_many
  CHECK(largest[0] <= actors);
  CHECK(numbers_after(out, "steps per second ").size() == 1);
}

TEST_CASE("task_timeout: the stuck episode is abandoned, every other one done, workers replaced") {
  const std::string out = run_example({"task_timeout"});
  MESSAGE(out);
  CHECK(lines_with(out, " (item 0) ran longer than its pool's task_timeout of 2.0 s on "
                        "worker w").size() == 1);
  CHECK(has(out, "abandoned: task episode@task_timeout.cpp:"));
  CHECK(has(out, "39 episodes done, 1 abandoned, on "));
  const auto processes = numbers_after(out, "abandoned, on ");
  REQUIRE(processes.size() == 1);
  CHECK(processes[0] >= 4);  // 39 episodes, at most 10 per worker process
}
