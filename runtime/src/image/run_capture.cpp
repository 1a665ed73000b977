#include "image/run_capture.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

extern char** environ;

namespace fiber::image {

bool RunCapture(const std::vector<std::string>& argv, const std::string& input, bool merge_stderr,
                std::string* output, int* status, std::string* err) {
  int out[2], in[2];
  if (::pipe2(out, O_CLOEXEC) != 0) {
    *err = std::string("cannot make a pipe: ") + std::strerror(errno);
    return false;
  }
  if (::pipe2(in, O_CLOEXEC) != 0) {
    *err = std::string("cannot make a pipe: ") + std::strerror(errno);
    ::close(out[0]);
    ::close(out[1]);
    return false;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in[0], 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  if (merge_stderr)
    posix_spawn_file_actions_adddup2(&actions, out[1], 2);
  else
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  const int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(out[1]);
  ::close(in[0]);
  if (rc != 0) {
    ::close(out[0]);
    ::close(in[1]);
    *err = "cannot run " + argv[0] + ": " + std::strerror(rc);
    return false;
  }
  // Small inputs (a registry's name): the pipe holds them whole.
  struct sigaction ignore {}, old {};
  ignore.sa_handler = SIG_IGN;
  ::sigaction(SIGPIPE, &ignore, &old);
  (void)!::write(in[1], input.data(), input.size());
  ::sigaction(SIGPIPE, &old, nullptr);
  ::close(in[1]);
  char buf[4096];
  ssize_t n;
  while ((n = ::read(out[0], buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR))
    if (n > 0) output->append(buf, static_cast<std::size_t>(n));
  ::close(out[0]);
  int ws = 0;
  while (::waitpid(pid, &ws, 0) < 0 && errno == EINTR) {
  }
  *status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
  return true;
}

}  // namespace fiber::image
