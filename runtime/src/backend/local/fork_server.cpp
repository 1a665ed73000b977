#include "backend/local/fork_server.hpp"

#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <set>

#include "backend/local/fork_protocol.hpp"
#include "backend/local/output_relay.hpp"
#include "os/exit_status.hpp"
#include "runs/run_dir.hpp"

namespace fiber::backend {

namespace {

// What heads the server's own lines on the master's stderr.
constexpr const char* kOwnOutputId = "fork-server";

// The worker's side of a fork: its environment, output (its log file or
// its pipe to the relay) and memory bound.
void BecomeWorker(const std::vector<std::string>& environment, int output_fd,
                  std::int64_t memory_mb) {
  ::clearenv();
  // putenv keeps the strings: they must live as long as the process.
  for (const auto& entry : environment) ::putenv(::strdup(entry.c_str()));
  ::dup2(output_fd, 1);
  ::dup2(output_fd, 2);
  ::close(output_fd);
  if (memory_mb > 0) {
    const rlim_t bytes = static_cast<rlim_t>(memory_mb) << 20;
    const struct rlimit limit {bytes, bytes};
    ::setrlimit(RLIMIT_AS, &limit);  // checked against the hard limit before the fork
  }
}

// What stops a start before the fork: the log file or pipe, a bound above
// the hard limit. Empty when nothing does; *output_fd is then open.
std::string Prepare(const ForkRequest& start, OutputRelay* relay, int* output_fd) {
  *output_fd = -1;
  if (start.memory_mb > 0) {
    struct rlimit current {};
    ::getrlimit(RLIMIT_AS, &current);
    const rlim_t bytes = static_cast<rlim_t>(start.memory_mb) << 20;
    if (current.rlim_max != RLIM_INFINITY && bytes > current.rlim_max)
      return "cannot limit the worker's memory to " + std::to_string(start.memory_mb) +
             " MiB: above this process's hard limit";
  }
  if (start.log_file.empty()) {
    std::string err;
    *output_fd = relay->Open(start.worker_id, &err);
    return err;
  }
  *output_fd = runs::OpenToAppend(start.log_file);
  if (*output_fd < 0)
    return "cannot open the worker's log " + start.log_file + ": " + std::strerror(errno);
  return "";
}

// The server's own output (the program's, say, from before its main
// called fiber::init) goes through the relay too. Its pipe never waits: a
// server blocked on writing to itself would never read.
void RelayOwnOutput(OutputRelay* relay) {
  std::string unused;
  const int own = relay->Open(kOwnOutputId, &unused);
  if (own < 0) return;
  ::fcntl(own, F_SETFL, O_NONBLOCK);
  ::dup2(own, 1);
  ::dup2(own, 2);
  ::close(own);
  std::fflush(stdout);  // what the program printed before its main, now headed
}

// The server's loop: starts from the master, exits of its workers, their
// output through the relay.
class ForkServer {
 public:
  explicit ForkServer(int fd) : fd_(fd), relay_(TakeStderr()) {
    sigset_t child_signal;
    sigemptyset(&child_signal);
    sigaddset(&child_signal, SIGCHLD);
    ::sigprocmask(SIG_BLOCK, &child_signal, &before_);
    signal_fd_ = ::signalfd(-1, &child_signal, SFD_CLOEXEC | SFD_NONBLOCK);
    RelayOwnOutput(&relay_);
  }

  // Serves until the master goes, then ends every worker and exits; in a
  // worker it forked, returns.
  void Serve() {
    std::string packet;
    for (;;) {
      if (!Flush()) break;
      const short wanted = POLLIN | (outbox_.empty() ? 0 : POLLOUT);
      // Without a signalfd, its entry is -1, which poll passes over.
      std::vector<pollfd> fds = {{fd_, wanted, 0}, {signal_fd_, POLLIN, 0}};
      relay_.AddPollFds(&fds);
      if (::poll(fds.data(), fds.size(), signal_fd_ >= 0 ? -1 : 100) < 0 && errno != EINTR) break;
      relay_.Relay(fds, 2);
      if (signal_fd_ >= 0 && (fds[1].revents & POLLIN)) {
        struct signalfd_siginfo info;
        while (::read(signal_fd_, &info, sizeof info) == sizeof info) {
        }
      }
      Reap();
      if (!(fds[0].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      if (!(fds[0].revents & POLLIN)) break;  // the master closed its end
      if (ReceivePacket(fd_, &packet, 0) != 1) break;  // the master closed its end
      if (Handle(packet)) return;
    }
    for (const pid_t pid : workers_) ::kill(pid, SIGKILL);
    for (const pid_t pid : workers_) WaitForChild(pid);
    relay_.Drain();  // what they wrote before they went
    ::_exit(0);
  }

 private:
  // The master's stderr, where the relay writes: the server's own fds 1
  // and 2 become a pipe of the relay's.
  int TakeStderr() { return master_stderr_ = ::fcntl(2, F_DUPFD_CLOEXEC, kForkServerEnd + 1); }

  // The server never waits to send: the master may be sending to it at
  // the same time, and a socket holds only a few packets (net.unix.
  // max_dgram_qlen, 10 by default), so both would wait for ever. What the
  // master has not taken yet waits in outbox_. False: the master is gone.
  bool Flush() {
    while (!outbox_.empty()) {
      const std::string& p = outbox_.front();
      if (::send(fd_, p.data(), p.size(), MSG_NOSIGNAL | MSG_DONTWAIT) < 0) {
        if (errno == EINTR) continue;
        return errno == EAGAIN || errno == EWOULDBLOCK;
      }
      outbox_.pop_front();
    }
    return true;
  }
  void Send(std::string p) { outbox_.push_back(std::move(p)); }

  void Reap() {
    int status = 0;
    pid_t pid;
    while ((pid = ::waitpid(-1, &status, WNOHANG)) > 0) {
      workers_.erase(pid);
      Send(EncodeExit({pid, status}));
    }
  }

  // A kill or a start; true in the worker a start forked.
  bool Handle(const std::string& packet) {
    if (Is(packet, ForkPacket::kKill)) {
      const pid_t pid = DecodePid(packet);
      if (workers_.count(pid)) ::kill(pid, SIGKILL);
      return false;
    }
    ForkRequest start;
    if (!DecodeStart(packet, &start)) return false;
    int output_fd = -1;
    if (const std::string reason = Prepare(start, &relay_, &output_fd); !reason.empty()) {
      Send(EncodeError(reason));
      return false;
    }
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::close(fd_);
      if (signal_fd_ >= 0) ::close(signal_fd_);
      relay_.Abandon();
      ::close(master_stderr_);
      ::sigprocmask(SIG_SETMASK, &before_, nullptr);
      BecomeWorker(start.environment, output_fd, start.memory_mb);
      return true;
    }
    ::close(output_fd);
    if (pid < 0) {
      Send(EncodeError(std::string("cannot fork a worker: ") + std::strerror(errno)));
      return false;
    }
    workers_.insert(pid);
    Send(EncodePid(ForkPacket::kPid, pid));
    return false;
  }

  const int fd_;
  int master_stderr_ = -1;
  sigset_t before_{};
  int signal_fd_ = -1;
  OutputRelay relay_;
  std::set<pid_t> workers_;
  std::deque<std::string> outbox_;
};

}  // namespace

void RunForkServer(int fd) {
  // Dies with the master at once; its workers then die with it.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  // What every worker would otherwise load for itself: libzmq asks for the
  // tcp protocol's number, which reads nsswitch.conf and tries its modules.
  (void)::getprotobyname("tcp");
  ForkServer(fd).Serve();
}

}  // namespace fiber::backend
