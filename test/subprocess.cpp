#include "subprocess.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <thread>

extern char** environ;

std::string built_program(const std::string& name) {
  char self[4096];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  std::string dir(self, n > 0 ? n : 0);
  return dir.substr(0, dir.rfind('/')) + "/" + name;
}

Child spawn(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
            const std::string& cwd) {
  int out[2], err[2];
  if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) return {};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err[1], 2);
  if (!cwd.empty()) posix_spawn_file_actions_addchdir_np(&actions, cwd.c_str());
  std::vector<std::string> vars;
  for (char** e = environ; *e; ++e) {
    std::string entry = *e;
    if (!env.count(entry.substr(0, entry.find('=')))) vars.push_back(entry);
  }
  for (const auto& [k, v] : env)
    if (!v.empty()) vars.push_back(k + "=" + v);
  std::vector<char*> args, envp;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  for (auto& v : vars) envp.push_back(v.data());
  envp.push_back(nullptr);
  Child child;
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    // No child to wait for or signal: a pid of -1 handed on would make a
    // later kill(-1, SIGKILL) end every process the user may signal (as
    // root, the whole machine). Stop this test program, naming the cause.
    std::fprintf(stderr, "subprocess: cannot start %s: %s\n", args[0], std::strerror(rc));
    std::abort();
  }
  close(out[1]);
  close(err[1]);
  child.pid = pid;
  child.stdout_fd = out[0];
  child.stderr_fd = err[0];
  return child;
}

namespace {
bool readable(int fd, std::chrono::steady_clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      deadline - std::chrono::steady_clock::now());
  if (left.count() <= 0) return false;
  pollfd p{fd, POLLIN, 0};
  return poll(&p, 1, static_cast<int>(left.count())) > 0;
}
}  // namespace

std::string read_all(int fd, int timeout_s) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  std::string data;
  char buf[4096];
  while (readable(fd, deadline)) {
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n <= 0) break;
    data.append(buf, n);
  }
  return data;
}

std::string read_line(int fd, int timeout_s) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  std::string line;
  char c;
  while (readable(fd, deadline) && read(fd, &c, 1) == 1 && c != '\n') line += c;
  return line;
}

int wait_exit(const Child& child, int timeout_s) {
  if (child.pid <= 0) return -1;  // never a process group or every process
  int status = 0;
  for (int i = 0; i < timeout_s * 50; ++i) {
    if (waitpid(child.pid, &status, WNOHANG) == child.pid)
      return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  kill(child.pid, SIGKILL);
  waitpid(child.pid, &status, 0);
  return -1;
}

std::string on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':'))
    if (::access((dir + "/" + name).c_str(), X_OK) == 0) return dir + "/" + name;
  return "/usr/bin/" + name;
}
