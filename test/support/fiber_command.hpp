// The fiber command as a test drives it: the real binary with its own runs
// directory (XDG_STATE_HOME), its ps as JSON and its run records; and a
// bounded wait for a condition. For tests of the command (cli_test,
// container_cli_test).
#pragma once

#include <pty.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <doctest/doctest.h>

#include "subprocess.hpp"
#include "support/temp_dir.hpp"

namespace fiber::testing {

// Waits (bounded) until pred holds.
template <class Pred>
bool eventually(Pred pred, int seconds = 30) {
  for (int i = 0; i < seconds * 20; ++i) {
    if (pred()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

/// SIGKILL to one recorded process. A pid that is not a single process's
/// (0 is the caller's group, -1 every process, 1 init) fails the test
/// instead: signalled, it would end the test run or the machine.
inline void KillRecorded(long pid) {
  REQUIRE_MESSAGE(pid > 1, "the record names no process: pid " << pid);
  ::kill(static_cast<pid_t>(pid), SIGKILL);
}

struct Fiber {
  TempDir state;
  std::map<std::string, std::string> env{{"XDG_STATE_HOME", state.path()}};

  Child Start(std::vector<std::string> args, const std::string& cwd = {}) {
    args.insert(args.begin(), built_program("../cli/fiber"));
    return spawn(args, env, cwd);
  }
  /// Runs to the end: exit status, stdout, stderr.
  std::tuple<int, std::string, std::string> Run(std::vector<std::string> args,
                                                const std::string& cwd = {}) {
    Child c = Start(std::move(args), cwd);
    std::string out = read_all(c.stdout_fd, 120);
    std::string err = read_all(c.stderr_fd, 120);
    // Tests poll ps for minutes: each call's pipes must not stay open.
    ::close(c.stdout_fd);
    ::close(c.stderr_fd);
    return {wait_exit(c, 120), out, err};
  }
  /// Starts the command with its stderr on stderr_fd (a terminal's side,
  /// for what it shows only on a terminal) and its stdout on stdout_fd
  /// (-1: the test's), run in cwd (empty: the test's); its pid, for waitpid.
  pid_t StartWithStderr(std::vector<std::string> args, int stderr_fd, int stdout_fd = -1,
                        const std::string& cwd = {}) {
    args.insert(args.begin(), built_program("../cli/fiber"));
    const pid_t pid = ::fork();
    if (pid == 0) {
      if (!cwd.empty() && ::chdir(cwd.c_str()) != 0) ::_exit(127);
      if (stdout_fd >= 0) ::dup2(stdout_fd, 1);
      ::dup2(stderr_fd, 2);
      for (const auto& [k, v] : env) ::setenv(k.c_str(), v.c_str(), 1);
      std::vector<char*> argv;
      for (auto& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
    return pid;
  }
  /// Runs to the end with its stderr on a terminal (what it shows only
  /// there) and its stdout in a pipe, in cwd (empty: the test's): exit
  /// status (-1: not an exit), stdout, what the terminal showed.
  std::tuple<int, std::string, std::string> RunOnTerminal(std::vector<std::string> args,
                                                          const std::string& cwd = {}) {
    int terminal = -1, side = -1, out[2];
    REQUIRE(::openpty(&terminal, &side, nullptr, nullptr, nullptr) == 0);
    REQUIRE(::pipe(out) == 0);
    const pid_t pid = StartWithStderr(std::move(args), side, out[1], cwd);
    ::close(side);
    ::close(out[1]);
    std::string printed = read_all(out[0], 300);
    ::close(out[0]);
    int status = 0;
    ::waitpid(pid, &status, 0);
    std::string shown;
    char buf[4096];
    for (ssize_t n; (n = ::read(terminal, buf, sizeof buf)) > 0;) shown.append(buf, static_cast<std::size_t>(n));
    ::close(terminal);
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, printed, shown};
  }
  /// fiber run --detach args...: the run's id (its output's first line).
  std::string Detached(std::vector<std::string> args) {
    args.insert(args.begin(), {"run", "--detach"});
    auto [status, out, err] = Run(args);
    REQUIRE_MESSAGE(status == 0, err);
    return out.substr(0, out.find('\n'));
  }
  nlohmann::json Ps() {
    auto [status, out, err] = Run({"ps", "-a", "--json"});
    REQUIRE_MESSAGE(status == 0, err);
    return nlohmann::json::parse(out);
  }
  /// fiber top --once --json RUN: the run's object in full.
  nlohmann::json Top(const std::string& id) {
    auto [status, out, err] = Run({"top", "--once", "--json", id});
    REQUIRE_MESSAGE(status == 0, err);
    return nlohmann::json::parse(out);
  }
  /// The `ended` of each worker fiber top --once --json RUN lists as lost,
  /// one a line: why each ended.
  std::string EndedWorkers(const std::string& id) {
    std::string ended;
    const nlohmann::json run = Top(id);
    if (run["workers"].is_array())
      for (const auto& w : run["workers"])
        if (w.value("state", "") == "lost") ended += w.value("id", "") + ": " + w.value("ended", "") + "\n";
    return ended;
  }
  /// Run id's object in fiber ps -a --json, or null when it is not listed.
  nlohmann::json PsOf(const std::string& id) {
    for (const auto& run : Ps())
      if (run["id"] == id) return run;
    return nullptr;
  }
  /// SIGKILL to run id's launcher and master, as kill -9 or a crash leaves
  /// a run: no cleanup of theirs runs.
  void KillRun(const std::string& id) {
    const nlohmann::json record = Record(id);
    KillRecorded(record["supervisor_pid"].get<long>());
    KillRecorded(record["master_pid"].get<long>());
  }
  /// No container engine from here on (DOCKER_HOST, CONTAINER_HOST): so
  /// that fiber prune removes none of fiber's images, which other tests
  /// sharing the engine are about to use.
  void WithoutEngine() {
    for (const char* variable : {"DOCKER_HOST", "CONTAINER_HOST"})
      env[variable] = "unix://" + state.path() + "/no-engine.sock";
  }
  /// fiber prune, WithoutEngine, checked to succeed, to remove run lost
  /// and to keep run other running.
  void CheckPruned(const std::string& lost, const std::string& other) {
    WithoutEngine();
    auto [status, out, err] = Run({"prune"});
    CHECK_MESSAGE(status == 0, err);
    CHECK(out.find(lost) != std::string::npos);
    CHECK(PsOf(lost).is_null());
    CHECK(PsOf(other)["state"] == "running");
  }
  /// Of a master: cluster run whose launcher alone got SIGKILL: ps says it
  /// runs, its launcher gone, and fiber prune (WithoutEngine) keeps it.
  void CheckLauncherGoneKept(const std::string& id) {
    KillRecorded(Record(id)["supervisor_pid"].get<long>());
    // Until ps no longer sees the launcher.
    REQUIRE(eventually([&] { return PsOf(id)["launcher_gone"] == true || PsOf(id)["state"] != "running"; }));
    CHECK(PsOf(id)["state"] == "running");
    CHECK(PsOf(id)["launcher_gone"] == true);
    auto [listed, table, table_err] = Run({"ps"});
    CHECK_MESSAGE(table.find("launcher gone: its master still runs in the cluster; fiber stop " + id) !=
                      std::string::npos,
                  table);
    WithoutEngine();
    auto [pruned, out, err] = Run({"prune"});
    CHECK_MESSAGE(pruned == 0, err);
    CHECK_MESSAGE(out.find(id) == std::string::npos, out);
    CHECK(PsOf(id)["state"] == "running");
  }
  /// fiber stop ends run id, which then reads as exited, and fiber prune
  /// (WithoutEngine) removes its record.
  void CheckStoppedAndPruned(const std::string& id) {
    auto [stopped, stop_out, stop_err] = Run({"stop", id});
    CHECK_MESSAGE(stopped == 0, stop_err);
    CHECK(PsOf(id)["state"] == "exited");
    WithoutEngine();
    auto [pruned, out, err] = Run({"prune"});
    CHECK_MESSAGE(pruned == 0, err);
    CHECK_MESSAGE(out.find(id) != std::string::npos, out);
    CHECK(PsOf(id).is_null());
  }
  /// The record of run id, as fiber run wrote it.
  nlohmann::json Record(const std::string& id) {
    std::ifstream in(state.path() + "/fiber/runs/" + id + "/run.json");
    return nlohmann::json::parse(in);
  }
};

/// fiber run's arguments for a profile of a config file: "run --config
/// FILE --profile PROFILE REST...".
inline std::vector<std::string> ProfileRun(const std::string& config, const std::string& profile,
                                           std::vector<std::string> rest) {
  std::vector<std::string> args = {"run", "--config", config, "--profile", profile};
  args.insert(args.end(), rest.begin(), rest.end());
  return args;
}

/// How many times what stands in text.
inline std::size_t Occurrences(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

/// What test/programs/slow_squares prints for m tasks: "sum S\n", S the
/// sum of the squares of 0..m-1.
inline std::string SlowSquaresOutput(long m) {
  long sum = 0;
  for (long x = 0; x < m; ++x) sum += x * x;
  return "sum " + std::to_string(sum) + "\n";
}

}  // namespace fiber::testing
