// Worker output at real volume, as a user sees it: relayed in time linear
// in its size, every line once and in each worker's order; a line without
// a newline in bounded pieces, still whole; local workers' lines headed
// "[wN]" on stderr with or without fiber run; a detached run's output in
// its log while it runs and after fiber stop. The real fiber command and
// test/programs/worker_lines.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

#include "backend/line_splitter.hpp"
#include "subprocess.hpp"
#include "support/fiber_command.hpp"
#include "support/temp_dir.hpp"

using fiber::testing::eventually;
using fiber::testing::Fiber;
using fiber::testing::TempDir;

namespace {

struct Ran {
  int status = -1;
  std::string out, err;
  double seconds = 0;
};

// Runs argv with its stderr in a file: a pipe read only after stdout would
// fill and stall a run that writes this much on stderr.
Ran RunWithStderrInFile(const std::vector<std::string>& argv, std::map<std::string, std::string> env) {
  TempDir dir;
  const std::string err_file = dir.path() + "/stderr";
  std::vector<std::string> sh = {"/bin/sh", "-c", "exec \"$@\" 2>\"$STDERR_FILE\"", "sh"};
  sh.insert(sh.end(), argv.begin(), argv.end());
  env["STDERR_FILE"] = err_file;
  Ran ran;
  const auto start = std::chrono::steady_clock::now();
  Child c = spawn(sh, env);
  ran.out = read_all(c.stdout_fd, 300);
  (void)read_all(c.stderr_fd, 300);
  ran.status = wait_exit(c, 300);
  ran.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::ifstream in(err_file);
  std::ostringstream text;
  text << in.rdbuf();
  ran.err = text.str();
  return ran;
}

Ran FiberRun(Fiber& fiber, const std::vector<std::string>& program) {
  std::vector<std::string> argv = {built_program("../cli/fiber"), "run"};
  argv.insert(argv.end(), program.begin(), program.end());
  return RunWithStderrInFile(argv, fiber.env);
}

// The lines of text headed "[wN] ", as (worker id, rest).
std::vector<std::pair<std::string, std::string>> WorkerLines(const std::string& text) {
  std::vector<std::pair<std::string, std::string>> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const std::size_t close = line.find("] ");
    if (line.rfind("[w", 0) != 0 || close == std::string::npos) continue;
    lines.emplace_back(line.substr(1, close - 1), line.substr(close + 2));
  }
  return lines;
}

// Checks that err holds worker_lines' "lines n": each of its 2 tasks' n/2
// lines once, in order, all of a task's from one worker.
void CheckEveryLineOnceInOrder(const std::string& err, long n) {
  std::map<int, long> next;
  std::map<int, std::string> worker_of;
  long found = 0;
  bool in_order = true, one_worker = true;
  for (const auto& [worker, rest] : WorkerLines(err)) {
    int task = -1;
    long i = -1;
    if (std::sscanf(rest.c_str(), "t%d %ld", &task, &i) != 2) continue;
    ++found;
    in_order = in_order && i == next[task];
    next[task] = i + 1;
    if (worker_of[task].empty()) worker_of[task] = worker;
    one_worker = one_worker && worker_of[task] == worker;
  }
  CHECK(found == n);
  CHECK(in_order);
  CHECK(one_worker);
  for (int task = 0; task < 2; ++task) CHECK(next[task] == n / 2);
}

// Checks that err holds worker_lines' "long n" whole, in pieces no longer
// than the bound.
void CheckLongLineInPieces(const std::string& err, long n) {
  std::string whole;
  std::size_t pieces = 0, longest = 0;
  for (const auto& [worker, rest] : WorkerLines(err)) {
    if (rest.empty() || rest.find_first_not_of("0123456789") != std::string::npos) continue;
    whole += rest;
    ++pieces;
    longest = std::max(longest, rest.size());
  }
  std::string expected(static_cast<std::size_t>(n), ' ');
  for (long i = 0; i < n; ++i) expected[static_cast<std::size_t>(i)] = static_cast<char>('0' + i % 10);
  CHECK(whole.size() == expected.size());
  CHECK((whole == expected));
  CHECK(longest <= fiber::backend::LineSplitter::kMaxLine);
  CHECK(pieces >= static_cast<std::size_t>(n) / fiber::backend::LineSplitter::kMaxLine);
}

}  // namespace

TEST_CASE("fiber run relays ten times the workers' lines in about ten times the time, each once and in order") {
  Fiber fiber;
  // The best of two runs of each size: a loaded machine slows some runs.
  const auto best_of_two = [&](long n) {
    double best = 1e9;
    for (int run = 0; run < 2; ++run) {
      const Ran ran = FiberRun(fiber, {built_program("worker_lines"), "lines", std::to_string(n)});
      REQUIRE(ran.status == 0);
      CHECK(ran.out == "done\n");
      CheckEveryLineOnceInOrder(ran.err, n);
      best = std::min(best, ran.seconds);
    }
    return best;
  };
  const double small = best_of_two(20000), big = best_of_two(200000);
  INFO("20k lines: " << small << " s, 200k lines: " << big << " s");
  CHECK(big / small <= 15);
}

TEST_CASE("a worker's line without a newline arrives whole, in pieces of at most 64 KiB") {
  Fiber fiber;
  const long n = 1 << 20;
  const Ran run = FiberRun(fiber, {built_program("worker_lines"), "long", std::to_string(n)});
  REQUIRE(run.status == 0);
  CheckLongLineInPieces(run.err, n);
  const Ran direct = RunWithStderrInFile({built_program("worker_lines"), "long", std::to_string(n)}, fiber.env);
  REQUIRE(direct.status == 0);
  CheckLongLineInPieces(direct.err, n);
}

TEST_CASE("without fiber run, local workers' lines go to stderr headed with their id, as with it") {
  Fiber fiber;
  const long n = 20000;
  const Ran direct = RunWithStderrInFile({built_program("worker_lines"), "lines", std::to_string(n)}, fiber.env);
  REQUIRE(direct.status == 0);
  CHECK(direct.out == "done\n");  // the program's own stdout only, as under fiber run
  CheckEveryLineOnceInOrder(direct.err, n);
  const Ran run = FiberRun(fiber, {built_program("worker_lines"), "lines", std::to_string(n)});
  CHECK(run.out == direct.out);
}

TEST_CASE("a detached run's output reaches its log line by line while it runs, and survives fiber stop") {
  Fiber fiber;
  auto [status, out, err] = fiber.Run({"run", "--detach", built_program("worker_lines"), "ticks"});
  REQUIRE_MESSAGE(status == 0, err);
  const std::string id = out.substr(0, out.find('\n'));
  const auto logs = [&] { return std::get<1>(fiber.Run({"logs", id})); };
  // A tick is 8 bytes every 50 ms: held in a 4 KiB block, the first would
  // show only after 25 s.
  CHECK(eventually([&] { return logs().find("tick 3\n") != std::string::npos; }, 10));
  CHECK(fiber.Ps()[0]["state"] == "running");
  auto [stopped, stop_out, stop_err] = fiber.Run({"stop", id});
  CHECK_MESSAGE(stopped == 0, stop_err);
  REQUIRE(eventually([&] { return fiber.Ps()[0]["state"] != "running"; }));
  // Every tick printed before the stop, in order.
  std::istringstream kept(logs());
  long next = 0;
  for (std::string line; std::getline(kept, line);)
    if (line == "tick " + std::to_string(next)) ++next;
  CHECK(next > 3);
}

TEST_CASE("a line splitter hands on lines, and a line longer than the bound in pieces of it") {
  std::vector<std::string> got;
  fiber::backend::LineSplitter lines([&](std::string_view line) { got.emplace_back(line); });
  const std::size_t bound = fiber::backend::LineSplitter::kMaxLine;
  lines.Feed("a\nb");
  lines.Feed("c\n\n");
  CHECK(got == std::vector<std::string>{"a", "bc", ""});
  got.clear();
  lines.Feed(std::string(bound, 'x') + "\n");  // exactly the bound: one line
  CHECK(got == std::vector<std::string>{std::string(bound, 'x')});
  got.clear();
  lines.Feed("y");
  lines.Feed(std::string(2 * bound, 'z'));
  lines.Feed("tail");
  CHECK(got == std::vector<std::string>{"y" + std::string(bound - 1, 'z'), std::string(bound, 'z')});
  lines.Finish();
  CHECK(got.back() == "ztail");
  lines.Finish();  // nothing left
  CHECK(got.size() == 3);
}
