// fiber run's progress line on a terminal: its words from the master's
// status answer, and, in a real terminal (tmux), that it shows while the
// program runs and is gone at the end, the program's output on lines of
// its own; nothing of it with -q (nor in a pipe: cli_test).
#include <doctest/doctest.h>
#include <unistd.h>

#include <string>

#include "progress_line.hpp"
#include "subprocess.hpp"
#include "support/fiber_command.hpp"

using fiber::testing::eventually;
using fiber::testing::Fiber;

namespace {

// A tmux server of the test's own, gone with it.
struct Tmux {
  std::string socket = "fiber-progress-" + std::to_string(::getpid());
  ~Tmux() {
    const std::string path = Run({"display-message", "-p", "#{socket_path}"});
    (void)Run({"kill-server"});
    if (!path.empty()) ::unlink(path.substr(0, path.find('\n')).c_str());  // which tmux 3.3 leaves
  }
  std::string Run(std::vector<std::string> args) {
    args.insert(args.begin(), {"/usr/bin/env", "tmux", "-L", socket});
    Child c = spawn(args, {});
    std::string out = read_all(c.stdout_fd, 30);
    (void)read_all(c.stderr_fd, 30);
    ::close(c.stdout_fd);
    ::close(c.stderr_fd);
    (void)wait_exit(c, 30);
    return out;
  }
  std::string Screen() { return Run({"capture-pane", "-p", "-t", "run"}); }
};

bool HasLine(const std::string& screen, const std::string& line) {
  return ("\n" + screen).find("\n" + line + "\n") != std::string::npos;
}

}  // namespace

TEST_CASE("the line says workers ready of wanted, tasks done of all, and the rate once known") {
  const nlohmann::json status = {{"workers_ready", 3}, {"workers_wanted", 4}, {"tasks_done", 12},
                                 {"tasks_failed", 0},  {"tasks_running", 3},  {"tasks_queued", 25}};
  CHECK(fiber::cli::ProgressText(status, -1) == "fiber: workers ready 3/4, tasks done 12/40");
  CHECK(fiber::cli::ProgressText(status, 3.14) == "fiber: workers ready 3/4, tasks done 12/40, 3.1 tasks/s");
  CHECK(fiber::cli::ProgressText(status, 250) == "fiber: workers ready 3/4, tasks done 12/40, 250 tasks/s");
  nlohmann::json failed = status;
  failed["tasks_failed"] = 2;
  CHECK(fiber::cli::ProgressText(failed, -1) == "fiber: workers ready 3/4, tasks done 12/42 (2 failed)");
  // An answer without the numbers (another version's) shows zeros, never throws.
  CHECK(fiber::cli::ProgressText(nlohmann::json{{"workers_ready", "x"}}, -1) ==
        "fiber: workers ready 0/0, tasks done 0/0");
}

TEST_CASE("on a terminal the line shows while the program runs and is gone at the end; -q shows none") {
  Fiber fiber;
  Tmux tmux;
  REQUIRE_MESSAGE(tmux.Run({"-V"}).rfind("tmux ", 0) == 0, "no tmux: .ci/install-deps installs it");
  std::string env;
  for (const auto& [k, v] : fiber.env) env += k + "='" + v + "' ";
  const std::string run = env + built_program("../cli/fiber") + " run %s " + built_program("slow_squares") +
                          " 2 20; echo fiber-exit $?; sleep 600";
  const auto start = [&](const std::string& flags) {
    std::string command = run;
    command.replace(command.find("%s"), 2, flags);
    (void)tmux.Run({"kill-session", "-t", "run"});
    (void)tmux.Run({"new-session", "-d", "-s", "run", "-x", "160", "-y", "30", command});
  };
  start("");
  std::string screen;
  CHECK_MESSAGE(eventually([&] {
                  screen = tmux.Screen();
                  return screen.find("fiber: workers ready 2/2, tasks done ") != std::string::npos &&
                         screen.find("/20") != std::string::npos;
                }, 60),
                screen);
  REQUIRE(eventually([&] { return (screen = tmux.Screen()).find("fiber-exit ") != std::string::npos; }, 60));
  CHECK_MESSAGE(HasLine(screen, "fiber-exit 0"), screen);
  // The program's output on a line of its own, the progress line gone.
  CHECK_MESSAGE(HasLine(screen, "sum 2470"), screen);
  CHECK_MESSAGE(screen.find("workers ready") == std::string::npos, screen);

  start("-q");
  bool shown = false;
  REQUIRE(eventually([&] {
    screen = tmux.Screen();
    shown = shown || screen.find("workers ready") != std::string::npos;
    return screen.find("fiber-exit ") != std::string::npos;
  }, 60));
  CHECK_FALSE(shown);
  CHECK_MESSAGE(HasLine(screen, "sum 2470"), screen);
}
