#include "supervisor.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>
#include <sstream>

#include "backend/worker_output.hpp"
#include "control_client.hpp"
#include "os/descriptor.hpp"
#include "os/exit_status.hpp"
#include "log_follower.hpp"
#include "runs/control_protocol.hpp"
#include "runs/run_dir.hpp"
#include "os/signal_name.hpp"

namespace fiber::cli {

using Clock = std::chrono::steady_clock;

namespace {

// What may be run: a regular file with an execute bit for us.
int Check(const std::string& path) {
  struct stat st{};
  if (::stat(path.c_str(), &st) != 0) return kNotFound;
  if (!S_ISREG(st.st_mode) || ::access(path.c_str(), X_OK) != 0) return kCannotExecute;
  return 0;
}

void Say(const SuperviseOptions& o, const std::string& line) {
  if (o.quiet || o.detached) return;
  const std::string text = "fiber: " + line + "\n";
  os::WriteAll(2, text);  // a closed stderr loses the text, not the run
}

// Writes the master's numbers at the stop (numbers, unless null) as the
// run's final ones, marked so, when its master wrote none as it ended.
void KeepNumbersAtStop(const std::string& run_dir, nlohmann::json numbers) {
  const std::string path = runs::FinalNumbersPath(run_dir);
  if (!numbers.is_object() || ::access(path.c_str(), F_OK) == 0) return;
  numbers["as_of"] = "stop";
  std::string unused;  // without them ps says the counts are unknown
  (void)runs::WriteWhole(path, numbers.dump(), &unused);
}

int StatusOf(int wait_status) {
  if (WIFEXITED(wait_status) || WIFSIGNALED(wait_status)) return ExitStatus::FromWait(wait_status).code();
  return kFiberError;
}

[[noreturn]] void ExecChild(const Program& p, const SuperviseOptions& o, pid_t parent,
                            int stderr_fd, int master_log, int report_fd) {
  ::setpgid(0, 0);  // its own group: a terminal's Ctrl-C reaches fiber, which forwards it
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(kFiberError);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  ::signal(SIGPIPE, SIG_DFL);
  if (o.detached) {
    ::dup2(master_log, 1);
    ::dup2(master_log, 2);
  } else {
    ::dup2(stderr_fd, 2);
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

}  // namespace

bool FindProgram(const std::string& name, const std::string& search_path, std::string* path,
                 int* status, std::string* err) {
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

int TakeStopSignals(bool with_children) {
  sigset_t handled;
  sigemptyset(&handled);
  for (int s : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&handled, s);
  if (with_children) sigaddset(&handled, SIGCHLD);
  ::sigprocmask(SIG_BLOCK, &handled, nullptr);
  ::signal(SIGPIPE, SIG_IGN);
  return ::signalfd(-1, &handled, SFD_CLOEXEC | SFD_NONBLOCK);
}

int Supervise(const Program& p, const SuperviseOptions& o, std::string* err) {
  const int signals = TakeStopSignals(true);
  const int master_log = runs::OpenToAppend(runs::MasterLogPath(o.run_dir));
  int out[2] = {-1, -1}, report[2];
  if (signals < 0 || master_log < 0 || ::pipe2(report, O_CLOEXEC) != 0 ||
      (!o.detached && ::pipe2(out, O_CLOEXEC) != 0)) {
    *err = std::string("cannot set up the run: ") + std::strerror(errno);
    return kFiberError;
  }
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    *err = std::string("cannot start the program: ") + std::strerror(errno);
    return kFiberError;
  }
  if (pid == 0) ExecChild(p, o, parent, out[1], master_log, report[1]);
  ::setpgid(pid, pid);  // also here, so no signal races the child's own call
  ::close(report[1]);
  if (out[1] >= 0) ::close(out[1]);
  int exec_errno = 0;
  if (::read(report[0], &exec_errno, sizeof exec_errno) == sizeof exec_errno) {
    ::waitpid(pid, nullptr, 0);
    *err = p.path + ": " + std::strerror(exec_errno);
    return exec_errno == ENOENT ? kNotFound : kCannotExecute;
  }
  ::close(report[0]);
  if (o.on_started) o.on_started(pid);

  // On a terminal, a line "workers ready R/W" while workers start, cleared
  // before anything else is written and once all are ready.
  const bool progress = !o.quiet && !o.detached && ::isatty(2);
  ControlClient control;
  std::string shown;
  auto clear_progress = [&] {
    if (shown.empty()) return;
    os::WriteAll(2, "\r\033[K");
    shown.clear();
  };
  auto show_progress = [&] {
    nlohmann::json s;
    std::string unused;
    if (!control.Query(o.run_dir, runs::kControlStatus, &s, &unused)) return;
    const int ready = s.value("workers_ready", 0), wanted = s.value("workers_wanted", 0);
    const std::string line = ready < wanted ? "fiber: workers ready " + std::to_string(ready) +
                                                  "/" + std::to_string(wanted)
                                            : "";
    if (line == shown) return;
    clear_progress();
    if (!line.empty()) os::WriteAll(2, line);
    shown = line;
  };
  auto last_progress = Clock::now() - std::chrono::seconds(1);
  LogFollower workers(runs::WorkersDir(o.run_dir), [&](const std::string& id, const std::string& line) {
    if (o.detached) return;
    clear_progress();
    const std::string text = backend::HeadedLine(id, line);
    os::WriteAll(2, text);
  });
  // The master's numbers as the first stop reached it: kept as the run's
  // final numbers if the stop ends the program before its master writes its own.
  nlohmann::json at_stop;
  std::optional<int> status;
  int killed_by = 0;  // the signal that ended the program, unless fiber forwarded it
  int stops = 0;
  auto deadline = Clock::time_point::max();  // of the grace period, once one runs
  auto end_everything = [&] { ::kill(-pid, SIGKILL); };
  while (!status || out[0] >= 0) {
    pollfd fds[2] = {{signals, POLLIN, 0}, {out[0], POLLIN, 0}};
    // Once the program has ended, its stderr closes when the last process
    // holding it ends; everything in its group was killed.
    ::poll(fds, out[0] >= 0 ? 2 : 1, status ? 1000 : 100);
    signalfd_siginfo info;
    while (::read(signals, &info, sizeof info) == sizeof info) {
      const int sig = static_cast<int>(info.ssi_signo);
      if (sig == SIGCHLD) continue;
      if (status) continue;
      if (++stops == 1) {
        std::string unused;
        if (!control.Query(o.run_dir, runs::kControlStatus, &at_stop, &unused)) at_stop = nullptr;
        ::kill(pid, sig);
        deadline = Clock::now() + o.grace;
        Say(o, std::string("stopping the run (") + strsignal(sig) + " again to force)");
      } else {
        Say(o, "ending the run now");
        end_everything();
      }
    }
    int wait_status = 0;
    if (!status && ::waitpid(pid, &wait_status, WNOHANG) == pid) {
      status = StatusOf(wait_status);
      end_everything();  // whatever it started and left behind
      // SIGPIPE is a reader that stopped early, as shells take it too.
      if (WIFSIGNALED(wait_status) && WTERMSIG(wait_status) != SIGPIPE && stops == 0)
        killed_by = WTERMSIG(wait_status);
    }
    if (out[0] >= 0 && (fds[1].revents & (POLLIN | POLLHUP))) {
      char buf[65536];
      const ssize_t n = ::read(out[0], buf, sizeof buf);
      if (n > 0) {
        clear_progress();
        os::WriteAll(2, std::string_view(buf, static_cast<std::size_t>(n)));
        os::WriteAll(master_log, std::string_view(buf, static_cast<std::size_t>(n)));
      } else if (n == 0 || errno != EINTR) {
        ::close(out[0]);
        out[0] = -1;
      }
    } else if (status && out[0] >= 0 && fds[1].revents == 0) {
      ::close(out[0]);  // quiet for a second after the end: nothing more comes
      out[0] = -1;
    }
    workers.Poll();
    if (progress && !status && Clock::now() - last_progress > std::chrono::milliseconds(250)) {
      last_progress = Clock::now();
      show_progress();
    }
    if (!status && Clock::now() > deadline) {
      Say(o, "the program did not stop within " +
                 std::to_string(o.grace.count() / 1000.0).substr(0, 4) + " s; ending it");
      end_everything();
      deadline = Clock::time_point::max();
    }
  }
  workers.Flush();
  clear_progress();
  KeepNumbersAtStop(o.run_dir, std::move(at_stop));
  // Its status alone (139) makes one look up what happened; said after the
  // program's own last words.
  if (killed_by != 0) Say(o, p.argv.front() + " was killed by " + SignalName(killed_by));
  ::close(master_log);
  ::close(signals);
  return *status;
}

}  // namespace fiber::cli
