#include "os/run_capture.hpp"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <map>

#include "os/background_thread.hpp"
#include "os/descriptor.hpp"
#include "os/exit_status.hpp"

namespace fiber {

namespace {

// What a helper may write before the rest is dropped.
constexpr std::size_t kMaxCaptured = 16 << 20;

// A pipe's two ends: 0 to read, 1 to write.
struct Pipe {
  os::Descriptor end[2];
  [[nodiscard]] bool Open() {
    int fd[2];
    if (::pipe2(fd, O_CLOEXEC) != 0) return false;
    end[0].Reset(fd[0]);
    end[1].Reset(fd[1]);
    return true;
  }
  int fd(int which) const { return end[which].get(); }
  void Close(int which) { end[which].Reset(); }
};

// This process's environment with the entries of extra set over it.
std::vector<std::string> Environment(const std::vector<std::string>& extra) {
  std::map<std::string, std::string> by_name;
  std::vector<std::string> order;
  auto set = [&](const std::string& entry) {
    const std::string name = entry.substr(0, entry.find('='));
    if (by_name.emplace(name, entry).second)
      order.push_back(name);
    else
      by_name[name] = entry;
  };
  for (char** e = environ; *e; ++e) set(*e);
  for (const auto& entry : extra) set(entry);
  std::vector<std::string> out;
  for (const auto& name : order) out.push_back(by_name[name]);
  return out;
}

// SIGPIPE blocked on this thread while it lives; one a write to a closed
// pipe raised meanwhile is taken, so it is never delivered. The process's
// disposition, which other threads and the program rely on, is untouched.
class SigpipeBlocked {
 public:
  SigpipeBlocked() {
    sigemptyset(&pipe_);
    sigaddset(&pipe_, SIGPIPE);
    sigset_t pending;
    sigemptyset(&pending);
    ::sigpending(&pending);
    was_pending_ = sigismember(&pending, SIGPIPE) == 1;
    ::pthread_sigmask(SIG_BLOCK, &pipe_, &old_);
  }
  ~SigpipeBlocked() {
    // One pending before we started is not ours to take.
    if (!was_pending_) {
      const timespec now{0, 0};
      while (::sigtimedwait(&pipe_, nullptr, &now) < 0 && errno == EINTR) {
      }
    }
    ::pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
  SigpipeBlocked(const SigpipeBlocked&) = delete;
  SigpipeBlocked& operator=(const SigpipeBlocked&) = delete;

 private:
  sigset_t pipe_, old_;
  bool was_pending_ = false;
};

// The helper's three pipes: its output, its errors and its input.
struct Pipes {
  Pipe out, errors, in;
};

// Starts what.argv with its standard descriptors on pipes' ends; 0, or
// posix_spawn's error.
int Spawn(const Capture& what, Pipes& p, pid_t* pid) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, p.in.fd(0), 0);
  posix_spawn_file_actions_adddup2(&actions, p.out.fd(1), 1);
  posix_spawn_file_actions_adddup2(&actions, what.merge_stderr ? p.out.fd(1) : p.errors.fd(1), 2);
  std::vector<char*> args;
  for (const auto& a : what.argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const std::vector<std::string> env_entries = Environment(what.env);
  std::vector<char*> env;
  for (const auto& e : env_entries) env.push_back(const_cast<char*>(e.c_str()));
  env.push_back(nullptr);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  UnblockSignalsOnSpawn(&attr);  // a watcher thread of fiber's may run it
  const int rc = posix_spawnp(pid, args[0], &actions, &attr, args.data(), env.data());
  posix_spawnattr_destroy(&attr);
  posix_spawn_file_actions_destroy(&actions);
  p.out.Close(1);
  p.errors.Close(1);
  p.in.Close(0);
  return rc;
}

// Feeds the helper its input and reads what it writes until both its
// outputs end, it times out or what.give_up says so (it is then killed).
void Exchange(const Capture& what, pid_t pid, Pipes& p, Captured* result) {
  // The input goes in as the helper reads it, between its output, so a
  // large one cannot stall against a helper blocked writing; the pipe is
  // non-blocking to that end.
  ::fcntl(p.in.fd(1), F_SETFL, ::fcntl(p.in.fd(1), F_GETFL) | O_NONBLOCK);
  std::size_t written = 0;
  if (what.input.empty()) p.in.Close(1);
  const SigpipeBlocked quiet_pipe;  // a helper that exits unread is an EPIPE, not our death

  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::milliseconds(what.timeout_ms);
  pollfd fds[3] = {{p.out.fd(0), POLLIN, 0}, {p.errors.fd(0), POLLIN, 0}, {p.in.fd(1), POLLOUT, 0}};
  std::string* sinks[2] = {&result->output, &result->errors};
  int open = 2;
  while (open > 0) {
    int wait_ms = -1;
    if (what.timeout_ms > 0) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
      if (left <= 0) {
        ::kill(pid, SIGKILL);
        result->timed_out = true;
        return;
      }
      wait_ms = static_cast<int>(left);
    }
    fds[2].fd = p.in.fd(1);
    const int n = ::poll(fds, 3, wait_ms);
    if (n < 0 && errno != EINTR) return;
    if (n > 0 && fds[2].fd >= 0 && fds[2].revents != 0) {
      const ssize_t put = ::write(p.in.fd(1), what.input.data() + written, what.input.size() - written);
      if (put > 0) written += static_cast<std::size_t>(put);
      // All of it, or the helper stopped reading (EPIPE): it ends either way.
      if (written == what.input.size() || (put < 0 && errno != EAGAIN && errno != EINTR)) p.in.Close(1);
    }
    for (int i = 0; i < 2 && n > 0; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      char buf[4096];
      const ssize_t got = ::read(fds[i].fd, buf, sizeof buf);
      if (got > 0) {
        if (sinks[i]->size() < kMaxCaptured) sinks[i]->append(buf, static_cast<std::size_t>(got));
        if (i == 1 && what.give_up && !result->gave_up && what.give_up(result->errors)) {
          ::kill(pid, SIGKILL);
          result->gave_up = true;
        }
      } else if (got == 0 || errno != EINTR) {
        fds[i].fd = -1;  // the Pipe closes it
        --open;
      }
    }
  }
}

}  // namespace

std::string LastLine(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' '))
    text.pop_back();
  const auto newline = text.rfind('\n');
  return newline == std::string::npos ? text : text.substr(newline + 1);
}

bool RunCapture(const Capture& what, Captured* result, std::string* err) {
  *result = Captured{};
  Pipes pipes;
  if (!pipes.out.Open() || !pipes.errors.Open() || !pipes.in.Open()) {
    *err = std::string("cannot make a pipe: ") + std::strerror(errno);
    return false;
  }
  pid_t pid = -1;
  if (const int rc = Spawn(what, pipes, &pid); rc != 0) {
    result->start_errno = rc;
    *err = "cannot run " + what.argv[0] + ": " + std::strerror(rc);
    return false;
  }
  Exchange(what, pid, pipes, result);
  pipes.in.Close(1);  // a helper still reading sees its end before we wait for it
  result->status = WaitForChild(pid).code();
  return true;
}

}  // namespace fiber
