#include "backend/local/local_backend.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "backend/command_line.hpp"

extern char** environ;

namespace fiber::backend {

std::string DescribeWaitStatus(int status) {
  if (WIFEXITED(status)) return "exit status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "killed by signal " + std::to_string(WTERMSIG(status));
  return "wait status " + std::to_string(status);
}

LocalBackend::~LocalBackend() { KillAll(); }

bool LocalBackend::Start(const Launch& launch, std::string* err) {
  std::vector<std::string> args = CommandLine();
  // The worker's environment: ours, with the bootstrap's variables in
  // place of any we hold.
  worker::Bootstrap bootstrap = launch.bootstrap;
  bootstrap.parent_pid = getpid();
  const auto vars = worker::ToEnvironment(bootstrap);
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    std::string entry = *e;
    if (!vars.count(entry.substr(0, entry.find('=')))) env.push_back(std::move(entry));
  }
  for (const auto& [key, value] : vars) env.push_back(key + "=" + value);

  std::vector<char*> argv, envp;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);

  // Its output goes to its log file, when the run keeps one.
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (!launch.log_file.empty()) {
    posix_spawn_file_actions_addopen(&actions, 1, launch.log_file.c_str(),
                                     O_WRONLY | O_CREAT | O_APPEND, 0600);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
  }
  pid_t pid = 0;
  const int rc =
      posix_spawn(&pid, "/proc/self/exe", &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    *err = std::string("cannot start worker process: ") + std::strerror(rc);
    return false;
  }
  children_[launch.bootstrap.worker_id] = pid;
  return true;
}

void LocalBackend::Kill(const std::string& worker_id) {
  auto it = children_.find(worker_id);
  if (it != children_.end()) ::kill(it->second, SIGKILL);
}

std::vector<Exit> LocalBackend::Poll() {
  std::vector<Exit> exits;
  for (auto it = children_.begin(); it != children_.end();) {
    int status = 0;
    const pid_t r = waitpid(it->second, &status, WNOHANG);
    if (r == it->second || (r < 0 && errno == ECHILD)) {
      exits.push_back({it->first, r < 0 ? "gone" : DescribeWaitStatus(status)});
      it = children_.erase(it);
    } else {
      ++it;
    }
  }
  return exits;
}

void LocalBackend::KillAll() {
  for (const auto& [id, pid] : children_) ::kill(pid, SIGKILL);
  for (const auto& [id, pid] : children_) {
    while (waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
  children_.clear();
}

}  // namespace fiber::backend
