#include "local_program.hpp"

#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <sstream>
#include <thread>
#include <utility>

#include "runs/run_dir.hpp"
#include "supervisor.hpp"

namespace fiber::cli {

namespace {

// What may be run: a regular file with an execute bit for us.
int Check(const std::string& path) {
  struct stat st{};
  if (::stat(path.c_str(), &st) != 0) return kNotFound;
  if (!S_ISREG(st.st_mode) || ::access(path.c_str(), X_OK) != 0) return kCannotExecute;
  return 0;
}

[[noreturn]] void ExecChild(const Program& p, bool detached, bool terminal, pid_t parent, int stderr_fd,
                            int master_log, int report_fd) {
  ::setpgid(0, 0);  // its own group: a terminal's Ctrl-C reaches fiber, which forwards it
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(kFiberError);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  ::signal(SIGPIPE, SIG_DFL);
  if (detached) {
    ::dup2(master_log, 1);
    ::dup2(master_log, 2);
  } else {
    ::dup2(stderr_fd, 2);
    if (terminal) ::dup2(stderr_fd, 1);
  }
  std::vector<char*> argv, envp;
  for (const auto& a : p.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  for (const auto& e : p.env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  ::execve(p.path.c_str(), argv.data(), envp.data());
  const int e = errno;
  (void)!::write(report_fd, &e, sizeof e);
  ::_exit(kNotFound);
}

// A terminal for the program's output, in the manner of the one it would
// have had: fiber run's own terminal's settings and size, but its output
// unprocessed (a newline stays one), as fiber run writes it there.
bool OpenTerminal(int out[2]) {
  termios settings{};
  winsize size{};
  const bool have_settings = ::tcgetattr(2, &settings) == 0;
  if (have_settings) settings.c_oflag &= ~static_cast<tcflag_t>(OPOST);
  const bool have_size = ::ioctl(2, TIOCGWINSZ, &size) == 0;
  if (::openpty(&out[0], &out[1], nullptr, have_settings ? &settings : nullptr, have_size ? &size : nullptr) != 0)
    return false;
  ::fcntl(out[0], F_SETFD, FD_CLOEXEC);
  ::fcntl(out[1], F_SETFD, FD_CLOEXEC);
  return true;
}

}  // namespace

bool LocalProgram::SameTerminal(int a, int b) {
  struct stat sa{}, sb{};
  return ::isatty(a) && ::isatty(b) && ::fstat(a, &sa) == 0 && ::fstat(b, &sb) == 0 && sa.st_rdev == sb.st_rdev;
}

bool FindProgram(const std::string& name, const std::string& search_path, std::string* path, int* status,
                 std::string* err) {
  if (name.find('/') != std::string::npos) {
    *status = Check(name);
    *path = name;
  } else {
    *status = kNotFound;
    std::istringstream dirs(search_path);
    for (std::string dir; *status != 0 && std::getline(dirs, dir, ':');) {
      const std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
      const int found = Check(candidate);
      if (found == 0 || (found == kCannotExecute && *status == kNotFound)) {
        *status = found;
        *path = candidate;
      }
    }
  }
  if (*status == kNotFound) *err = name + ": program not found";
  if (*status == kCannotExecute) *err = *path + ": not an executable file";
  return *status == 0;
}

std::unique_ptr<LocalProgram> LocalProgram::Start(const Program& p, const std::string& run_dir, bool detached,
                                                  bool terminal, int* status, std::string* err) {
  *status = kFiberError;
  const int master_log = detached ? runs::OpenToAppend(runs::MasterLogPath(run_dir)) : -1;
  int out[2] = {-1, -1}, report[2];
  if ((detached && master_log < 0) || ::pipe2(report, O_CLOEXEC) != 0 ||
      (!detached && !(terminal ? OpenTerminal(out) : ::pipe2(out, O_CLOEXEC) == 0))) {
    *err = std::string("cannot set up the run: ") + std::strerror(errno);
    return nullptr;
  }
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    *err = std::string("cannot start the program: ") + std::strerror(errno);
    return nullptr;
  }
  if (pid == 0) ExecChild(p, detached, terminal && !detached, parent, out[1], master_log, report[1]);
  ::setpgid(pid, pid);  // also here, so no signal races the child's own call
  ::close(report[1]);
  if (out[1] >= 0) ::close(out[1]);
  if (master_log >= 0) ::close(master_log);
  int exec_errno = 0;
  const bool failed = ::read(report[0], &exec_errno, sizeof exec_errno) == sizeof exec_errno;
  ::close(report[0]);
  if (failed) {
    ::waitpid(pid, nullptr, 0);
    if (out[0] >= 0) ::close(out[0]);
    *err = p.path + ": " + std::strerror(exec_errno);
    *status = exec_errno == ENOENT ? kNotFound : kCannotExecute;
    return nullptr;
  }
  return std::unique_ptr<LocalProgram>(new LocalProgram(pid, out[0]));
}

LocalProgram::~LocalProgram() {
  if (out_ >= 0) ::close(out_);
}

const backend::MasterWords& LocalProgram::words() const {
  static const backend::MasterWords kWords;  // it runs here: nothing to say of where
  return kWords;
}

backend::MasterState LocalProgram::Wait(std::chrono::milliseconds timeout) {
  backend::MasterState state;
  state.phase = backend::MasterState::Phase::kRunning;
  if (out_ >= 0) {
    // Once the program has ended, its stderr closes when the last process
    // holding it ends; everything in its group was killed.
    pollfd fd = {out_, POLLIN, 0};
    ::poll(&fd, 1, exit_ ? 1000 : static_cast<int>(timeout.count()));
    if (fd.revents & (POLLIN | POLLHUP)) {
      char buf[65536];
      const ssize_t n = ::read(out_, buf, sizeof buf);
      if (n > 0) {
        output_.append(buf, static_cast<std::size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        ::close(out_);
        out_ = -1;
      }
    } else if (exit_ && fd.revents == 0) {
      ::close(out_);  // quiet for a second after the end: nothing more comes
      out_ = -1;
    }
  } else if (!exit_) {
    std::this_thread::sleep_for(timeout);
  }
  int wait_status = 0;
  if (!exit_ && ::waitpid(pid_, &wait_status, WNOHANG) == pid_) {
    exit_ = ExitStatus::FromWait(wait_status);
    ::kill(-pid_, SIGKILL);  // whatever it started and left behind
  }
  if (exit_ && out_ < 0) {
    state.phase = backend::MasterState::Phase::kEnded;
    state.exit = exit_;
  }
  return state;
}

bool LocalProgram::Stop(int signal, std::string*) {
  if (!exit_) ::kill(pid_, signal);  // once reaped its pid may be another's
  return true;
}

bool LocalProgram::Kill(std::string*) {
  ::kill(-pid_, SIGKILL);  // its group outlives it while any member lives
  return true;
}

std::string LocalProgram::TakeOutput() { return std::exchange(output_, {}); }

}  // namespace fiber::cli
