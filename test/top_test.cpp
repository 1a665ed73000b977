// fiber top, the real command on real runs of the local backend: live in a
// real terminal (tmux), one snapshot for scripts, and what it says when a
// run's master is gone or its arguments are wrong.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "subprocess.hpp"
#include "support/fiber_command.hpp"

using fiber::testing::eventually;
using fiber::testing::Fiber;

namespace {

// A tmux server of the test's own (its socket in the test's directory),
// killed with what runs in it when the test ends.
struct Tmux {
  std::string socket;
  explicit Tmux(const std::string& dir) : socket(dir + "/tmux.sock") {}
  ~Tmux() { (void)Run({"kill-server"}); }
  int Run(std::vector<std::string> args, std::string* out = nullptr) {
    args.insert(args.begin(), {on_path("tmux"), "-S", socket});
    Child c = spawn(args, {});
    std::string printed = read_all(c.stdout_fd, 30);
    ::close(c.stdout_fd);
    ::close(c.stderr_fd);
    if (out) *out = printed;
    return wait_exit(c, 30);
  }
  std::string Screen() {
    std::string out;
    (void)Run({"capture-pane", "-p", "-t", "top"}, &out);
    return out;
  }
};

// The DONE column of the first pool line on a screen of fiber top; -1
// when there is none.
long PoolDone(const std::string& screen) {
  std::istringstream lines(screen);
  for (std::string line; std::getline(lines, line);)
    if (line.rfind("POOL", 0) == 0 && std::getline(lines, line)) {
      std::istringstream fields(line);
      std::string pool, workers;
      long done = -1;
      fields >> pool >> workers >> done;
      return done;
    }
  return -1;
}

}  // namespace

TEST_CASE("fiber top in a terminal shows a running run's workers and its numbers moving, and q quits it with 0") {
  Fiber fiber;
  // 2 workers, 200 tasks of 300 ms: half a minute, stopped well before.
  const std::string id = fiber.Detached({"--name", "watched", built_program("slow_squares"), "2", "200"});
  Tmux tmux(fiber.state.path());
  const std::string status_file = fiber.state.path() + "/top.status";
  const std::string command = "env XDG_STATE_HOME=" + fiber.state.path() + " " +
                              built_program("../cli/fiber") + " top watched; echo $? > " +
                              status_file;
  REQUIRE(tmux.Run({"new-session", "-d", "-s", "top", "-x", "160", "-y", "40", command}) == 0);
  std::string first;
  REQUIRE(eventually([&] {
    first = tmux.Screen();
    return first.find("square_slowly (item") != std::string::npos && PoolDone(first) > 0;
  }));
  CHECK(first.find("fiber top") != std::string::npos);
  CHECK(first.find("RUN " + id) != std::string::npos);
  CHECK(first.find("w0") != std::string::npos);
  CHECK(first.find("w1") != std::string::npos);
  CHECK(first.find("busy") != std::string::npos);
  CHECK(first.find("master pid") != std::string::npos);
  // The screen is redrawn with the tasks done since.
  std::string second;
  CHECK(eventually([&] {
    second = tmux.Screen();
    return PoolDone(second) > PoolDone(first);
  }));
  // s orders the workers by another key, as the heading says.
  REQUIRE(tmux.Run({"send-keys", "-t", "top", "s"}) == 0);
  CHECK(eventually([&] { return tmux.Screen().find("workers by id") != std::string::npos; }));
  REQUIRE(tmux.Run({"send-keys", "-t", "top", "q"}) == 0);
  std::string status;
  REQUIRE(eventually([&] {
    std::ifstream in(status_file);
    return static_cast<bool>(std::getline(in, status));
  }));
  CHECK(status == "0");
  auto [stop_status, stop_out, stop_err] = fiber.Run({"stop", id});
  CHECK_MESSAGE(stop_status == 0, stop_err);
}

TEST_CASE("fiber top --once --json counts what the program did, and ps RUN --json shows the same numbers") {
  Fiber fiber;
  // 2 workers, 20 tasks of 300 ms: about 3 s.
  const std::string id = fiber.Detached({"--name", "counted", built_program("slow_squares"), "2", "20"});
  nlohmann::json live;
  REQUIRE(eventually([&] {
    live = fiber.Top(id);
    return live["state"] == "running" && live["workers"].is_array() && live["workers"].size() == 2 &&
           live["tasks_done"].is_number_integer() && live["tasks_done"].get<int>() >= 1;
  }));
  CHECK(live["version"] == 1);
  CHECK(live["workers_from"] == "master");
  CHECK(live["master"]["rss_bytes"].get<long>() > 0);
  REQUIRE(live["pools"].is_array());
  REQUIRE(live["pools"].size() == 1);
  CHECK(live["pools"][0]["tasks_submitted"] == 20);
  CHECK(live["pools"][0]["finished"] == false);
  CHECK(live["pools"][0]["rate_average"].is_number());
  for (const auto& w : live["workers"]) {
    CHECK(w["pid"].get<long>() > 0);
    CHECK(w["where"].get<std::string>().size() > 0);  // the master's host
    CHECK(w["tasks_done"].is_number_integer());
    CHECK((w["state"] == "busy" || w["state"] == "ready"));
  }
  REQUIRE(eventually([&] { return fiber.Top(id)["state"] == "exited"; }));
  const nlohmann::json end = fiber.Top(id);
  CHECK(end["exit_status"] == 0);
  CHECK(end["tasks_done"] == 20);
  CHECK(end["tasks_failed"] == 0);
  CHECK(end["items_done"] == 20);
  const nlohmann::json& pool = end["pools"][0];
  CHECK(pool["tasks_done"] == 20);
  CHECK(pool["tasks_queued"] == 0);
  CHECK(pool["eta_seconds"] == 0.0);
  // Each task once in the histogram, each about its 300 ms (less the
  // trip of the result before it, from when the master counts it begun).
  CHECK(pool["task_seconds"]["count"] == 20);
  long in_buckets = 0;
  for (const auto& n : pool["task_seconds"]["buckets"]) in_buckets += n.get<long>();
  CHECK(in_buckets == 20);
  CHECK(pool["task_seconds"]["sum"].get<double>() >= 20 * 0.25);
  CHECK(pool["finished"] == true);  // the program's pool, as it ended
  // ps RUN: the same object.
  auto [ps_status, ps_out, ps_err] = fiber.Run({"ps", "--json", id});
  REQUIRE_MESSAGE(ps_status == 0, ps_err);
  const nlohmann::json ps = nlohmann::json::parse(ps_out);
  for (const char* key : {"tasks_done", "tasks_failed", "tasks_submitted", "items_done", "workers_started", "pools", "workers"})
    CHECK_MESSAGE(ps[key] == end[key], key);
  // And the text of both: the same pool line.
  auto [once_status, once, once_err] = fiber.Run({"top", "--once", id});
  auto [table_status, table, table_err] = fiber.Run({"ps", id});
  const std::string pool_line = once.substr(once.find("\n", once.find("POOL")) + 1);
  CHECK(table.find(pool_line.substr(0, pool_line.find('\n'))) != std::string::npos);
}

TEST_CASE("fiber top of a run whose master died says so, with what its engine records instead") {
  Fiber fiber;
  const std::string id = fiber.Detached({"--name", "orphan", built_program("slow_squares"), "2", "200"});
  REQUIRE(eventually([&] { return fiber.Top(id)["tasks_done"].is_number_integer(); }));
  fiber.KillRun(id);
  REQUIRE(eventually([&] { return fiber.Top(id)["state"] == "master died"; }));
  const nlohmann::json run = fiber.Top(id);
  CHECK(run["workers"].is_null());
  CHECK(run["note"] ==
        "its master does not answer (the launcher was killed); the local backend keeps no records of its "
        "workers outside the run's directory");
  auto [status, out, err] = fiber.Run({"top", "--once", id});
  CHECK(status == 0);
  CHECK(out.find("note: its master does not answer (the launcher was killed)") != std::string::npos);
  // The live view of every run shows only those running.
  auto [all_status, all, all_err] = fiber.Run({"top", "--once"});
  CHECK(all.find("no run is running") != std::string::npos);
}

TEST_CASE("fiber top refuses wrong arguments with one line saying why") {
  Fiber fiber;
  const auto one_error = [&](std::vector<std::string> args, int expected, const std::string& says) {
    auto [status, out, err] = fiber.Run(args);
    CHECK(status == expected);
    CHECK_MESSAGE(err.find(says) != std::string::npos, err);
    CHECK_MESSAGE(fiber::testing::Occurrences(err, "\n") == 1, err);
    CHECK(out.empty());
  };
  one_error({"top", "--json"}, 125, "fiber: error: --json prints one snapshot: use it with --once");
  one_error({"top", "--once", "--sort", "fastest"}, 125, "fastest");
  one_error({"top", "--once", "nosuchrun"}, 1, "nosuchrun");
  one_error({"top", "a", "b"}, 125, "fiber: error:");
  // Not on a terminal: the live view cannot draw.
  one_error({"top"}, 125, "fiber top draws on a terminal");
}
