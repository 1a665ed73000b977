// What `fiber run` adds to a program's start and exit: the same program
// started directly and through `fiber run -q`, alternating, N times each,
// with a private runs directory. Programs: /bin/true (no fiber at all) and
// a fiber program that only calls fiber::init (this executable, run with
// "--hello"). Prints a table; the target is under 20 ms added.
#include <fiber/fiber.hpp>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "common.hpp"

extern char** environ;

namespace {

// Runs argv to its end with stdout and stderr discarded; seconds taken.
double Time(const std::vector<std::string>& args) {
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  const auto t0 = bench::Clock::now();
  pid_t pid = 0;
  if (posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ) != 0) {
    std::fprintf(stderr, "cannot start %s\n", argv[0]);
    std::exit(1);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  const double took = bench::seconds_since(t0);
  posix_spawn_file_actions_destroy(&actions);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::fprintf(stderr, "%s failed\n", argv[0]);
    std::exit(1);
  }
  return took;
}

}  // namespace

int main(int argc, char** argv) {
  fiber::init(argc, argv);
  if (argc > 1 && std::string(argv[1]) == "--hello") return 0;
  const int n = bench::quick(argc, argv) ? 20 : 200;
  const std::string self = std::filesystem::canonical("/proc/self/exe").string();
  const std::string fiber = std::filesystem::path(self).parent_path().parent_path() / "cli" / "fiber";
  char state[] = "/tmp/fiber-bench-XXXXXX";
  setenv("XDG_STATE_HOME", mkdtemp(state), 1);
  std::printf("Start to exit of a program, ms (%d runs of each, alternating)\n", n);
  std::printf("  %-28s %9s %9s %9s %9s %9s %9s\n", "program", "direct", "median", "fiber run",
              "median", "added", "median");
  const std::vector<std::pair<std::string, std::vector<std::string>>> programs = {
      {"/bin/true", {"/bin/true"}},
      {"fiber::init only", {self, "--hello"}},
  };
  for (const auto& [name, args] : programs) {
    std::vector<double> direct, launched;
    std::vector<std::string> via{fiber, "run", "-q"};
    via.insert(via.end(), args.begin(), args.end());
    for (int i = 0; i < n; ++i) {
      direct.push_back(Time(args) * 1000);
      launched.push_back(Time(via) * 1000);
    }
    const auto d = bench::summarize(direct), l = bench::summarize(launched);
    std::printf("  %-28s %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f\n", name.c_str(), d.mean, d.median,
                l.mean, l.median, l.mean - d.mean, l.median - d.median);
  }
  std::printf("  target: fiber run adds under 20 ms\n");
  std::filesystem::remove_all(state);
}
