#include "backend/local/fork_server.hpp"

#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <set>

#include "backend/command_line.hpp"
#include "backend/local/output_relay.hpp"
#include "background_thread.hpp"
#include "runs/run_dir.hpp"

extern char** environ;

namespace fiber::backend {

namespace {

// Packets: a request to start ('S'), its answer ('P' pid or 'E' reason), a
// kill ('K' pid) and an exit report ('X' pid, wait status). The fields of
// 'S' are NUL-terminated: log file, memory bound, worker id, then the
// environment.
constexpr char kStart = 'S', kPid = 'P', kError = 'E', kKill = 'K', kExit = 'X';
// The descriptor the server finds its end on.
constexpr int kServerFd = 3;
// How long the master waits for the server's answer to a start: a fork
// takes milliseconds; only a stopped server takes longer.
constexpr int kAnswerTimeoutMs = 30000;
// What heads the server's own lines on the master's stderr.
constexpr const char* kOwnOutputId = "fork-server";

// One whole packet (1), the end of the stream (0), or none yet (-1, with
// MSG_DONTWAIT).
int ReceivePacket(int fd, std::string* packet, int flags) {
  for (;;) {
    const ssize_t size = ::recv(fd, nullptr, 0, MSG_PEEK | MSG_TRUNC | flags);
    if (size < 0 && errno == EINTR) continue;
    if (size < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return -1;
    if (size <= 0) return 0;
    packet->resize(static_cast<std::size_t>(size));
    const ssize_t got = ::recv(fd, packet->data(), packet->size(), flags);
    if (got < 0 && errno == EINTR) continue;
    return got == size ? 1 : 0;
  }
}

void WaitFor(pid_t pid) {
  while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
  }
}

// --- the server's side ------------------------------------------------------

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

struct Start {
  std::string log_file;
  std::int64_t memory_mb = 0;
  std::string worker_id;
  std::vector<std::string> environment;
};

bool ParseStart(const std::string& packet, Start* out) {
  std::vector<std::string> fields;
  std::size_t at = 1;
  while (at < packet.size()) {
    const std::size_t end = packet.find('\0', at);
    if (end == std::string::npos) return false;
    fields.push_back(packet.substr(at, end - at));
    at = end + 1;
  }
  if (fields.size() < 3) return false;
  out->log_file = fields[0];
  out->memory_mb = std::strtoll(fields[1].c_str(), nullptr, 10);
  out->worker_id = fields[2];
  out->environment.assign(fields.begin() + 3, fields.end());
  return true;
}

// What stops a start before the fork: the log file or pipe, a bound above
// the hard limit. Empty when nothing does; *output_fd is then open.
std::string Prepare(const Start& start, OutputRelay* relay, int* output_fd) {
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

}  // namespace

void RunForkServer(int fd) {
  // Dies with the master at once; its workers then die with it.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  // What every worker would otherwise load for itself: libzmq asks for the
  // tcp protocol's number, which reads nsswitch.conf and tries its modules.
  (void)::getprotobyname("tcp");
  sigset_t child_signal, before;
  sigemptyset(&child_signal);
  sigaddset(&child_signal, SIGCHLD);
  ::sigprocmask(SIG_BLOCK, &child_signal, &before);
  const int signal_fd = ::signalfd(-1, &child_signal, SFD_CLOEXEC | SFD_NONBLOCK);
  // The master's stderr, where the relay writes: the server's own fds 1
  // and 2 become a pipe of the relay's.
  const int master_stderr = ::fcntl(2, F_DUPFD_CLOEXEC, kServerFd + 1);
  OutputRelay relay(master_stderr);
  RelayOwnOutput(&relay);
  std::set<pid_t> workers;
  std::string packet;
  // The server never waits to send: the master may be sending to it at the
  // same time, and a socket holds only a few packets (net.unix.
  // max_dgram_qlen, 10 by default), so both would wait for ever. What the
  // master has not taken yet waits here.
  std::deque<std::string> outbox;
  const auto send = [&](std::string p) { outbox.push_back(std::move(p)); };
  const auto flush = [&] {
    while (!outbox.empty()) {
      const std::string& p = outbox.front();
      if (::send(fd, p.data(), p.size(), MSG_NOSIGNAL | MSG_DONTWAIT) < 0) {
        if (errno == EINTR) continue;
        return errno == EAGAIN || errno == EWOULDBLOCK;  // false: the master is gone
      }
      outbox.pop_front();
    }
    return true;
  };
  const auto reap = [&] {
    int status = 0;
    pid_t pid;
    while ((pid = ::waitpid(-1, &status, WNOHANG)) > 0) {
      workers.erase(pid);
      send(kExit + std::to_string(pid) + " " + std::to_string(status));
    }
  };

  for (;;) {
    if (!flush()) break;
    const short wanted = POLLIN | (outbox.empty() ? 0 : POLLOUT);
    // Without a signalfd, its entry is -1, which poll passes over.
    std::vector<pollfd> fds = {{fd, wanted, 0}, {signal_fd, POLLIN, 0}};
    relay.AddPollFds(&fds);
    if (::poll(fds.data(), fds.size(), signal_fd >= 0 ? -1 : 100) < 0 && errno != EINTR) break;
    relay.Relay(fds, 2);
    if (signal_fd >= 0 && (fds[1].revents & POLLIN)) {
      struct signalfd_siginfo info;
      while (::read(signal_fd, &info, sizeof info) == sizeof info) {
      }
    }
    reap();
    if (!(fds[0].revents & (POLLIN | POLLHUP | POLLERR))) continue;
    if (!(fds[0].revents & POLLIN)) break;  // the master closed its end
    if (ReceivePacket(fd, &packet, 0) != 1) break;  // the master closed its end
    if (packet[0] == kKill) {
      const pid_t pid = static_cast<pid_t>(std::strtol(packet.c_str() + 1, nullptr, 10));
      if (workers.count(pid)) ::kill(pid, SIGKILL);
      continue;
    }
    Start start;
    if (packet[0] != kStart || !ParseStart(packet, &start)) continue;
    int output_fd = -1;
    const std::string reason = Prepare(start, &relay, &output_fd);
    if (!reason.empty()) {
      send(kError + reason);
      continue;
    }
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::close(fd);
      if (signal_fd >= 0) ::close(signal_fd);
      relay.Abandon();
      ::close(master_stderr);
      ::sigprocmask(SIG_SETMASK, &before, nullptr);
      BecomeWorker(start.environment, output_fd, start.memory_mb);
      return;
    }
    ::close(output_fd);
    if (pid < 0) {
      send(kError + std::string("cannot fork a worker: ") + std::strerror(errno));
      continue;
    }
    workers.insert(pid);
    send(kPid + std::to_string(pid));
  }
  for (const pid_t pid : workers) ::kill(pid, SIGKILL);
  for (const pid_t pid : workers) WaitFor(pid);
  relay.Drain();  // what they wrote before they went
  ::_exit(0);
}

// --- the master's side ------------------------------------------------------

ForkServer::~ForkServer() { Stop(); }

bool ForkServer::Ensure(std::string* err) {
  if (fd_ >= 0) return true;
  int ends[2];
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, ends) != 0) {
    *err = std::string("cannot start the worker fork server: ") + std::strerror(errno);
    return false;
  }
  // Its end goes to descriptor 3; from any other number, so that dup2
  // clears close-on-exec.
  int theirs = ends[1];
  if (theirs == kServerFd) {
    theirs = ::fcntl(ends[1], F_DUPFD_CLOEXEC, kServerFd + 1);
    ::close(ends[1]);
  }
  std::vector<std::string> args = CommandLine();
  std::vector<std::string> env;
  const std::string marker = std::string(kForkServerFd) + "=";
  for (char** e = environ; *e; ++e)
    if (std::strncmp(*e, marker.c_str(), marker.size()) != 0) env.push_back(*e);
  env.push_back(marker + std::to_string(kServerFd));
  // Every symbol bound once, in the server: lazily bound, each worker would
  // look up and write again the same hundreds of symbols, page by page.
  env.push_back("LD_BIND_NOW=1");
  std::vector<char*> argv, envp;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, theirs, kServerFd);
  // Descriptors the program opened without close-on-exec (a log, a socket,
  // a lock) stay its own: inherited, the server and every worker it forks
  // would hold them open, so a file would never see its last close or a
  // peer its hangup. What the program opens again on its way to
  // fiber::init is its workers' by design.
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
  posix_spawn_file_actions_addclosefrom_np(&actions, kServerFd + 1);
#endif
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  UnblockSignalsOnSpawn(&attr);  // the run's I/O thread may start it; workers inherit its mask
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, "/proc/self/exe", &actions, &attr, argv.data(), envp.data());
  posix_spawnattr_destroy(&attr);
  posix_spawn_file_actions_destroy(&actions);
  ::close(theirs);
  if (rc != 0) {
    ::close(ends[0]);
    *err = std::string("cannot start worker processes: ") + std::strerror(rc);
    return false;
  }
  fd_ = ends[0];
  pid_ = pid;
  ++generation_;
  return true;
}

pid_t ForkServer::Fork(const ForkRequest& request, std::string* err) {
  std::string packet(1, kStart);
  packet += request.log_file + '\0' + std::to_string(request.memory_mb) + '\0' +
            request.worker_id + '\0';
  for (const auto& entry : request.environment) packet += entry + '\0';
  // A server killed since the last start is found here first: once more,
  // with a new one.
  bool sent = false;
  for (int attempt = 0; attempt < 2 && !sent; ++attempt) {
    if (!Ensure(err)) return 0;
    sent = Send(packet);
    if (!sent && errno == EPIPE) Reap();
  }
  if (!sent) {
    *err = "cannot hand a worker's start to the fork server (pid " + std::to_string(pid_) +
           "): " + std::strerror(errno);
    return 0;
  }
  for (;;) {
    std::string answer;
    bool closed = false;
    if (!Receive(&answer, kAnswerTimeoutMs, &closed)) {
      *err = closed ? "the worker fork server (pid " + std::to_string(pid_) + ") ended"
                    : "the worker fork server (pid " + std::to_string(pid_) +
                          ") did not answer within 30 s";
      if (closed) Reap();
      return 0;
    }
    if (answer[0] == kExit) {
      Record(answer);
    } else if (answer[0] == kPid) {
      return static_cast<pid_t>(std::strtol(answer.c_str() + 1, nullptr, 10));
    } else if (answer[0] == kError) {
      *err = answer.substr(1);
      return 0;
    }
  }
}

void ForkServer::Kill(pid_t pid) {
  if (fd_ >= 0) (void)Send(kKill + std::to_string(pid));
}

std::vector<ForkedExit> ForkServer::Poll(std::vector<int>* gone) {
  std::string packet;
  bool closed = false;
  while (fd_ >= 0 && Receive(&packet, 0, &closed)) Record(packet);
  if (closed) Reap();
  gone->insert(gone->end(), gone_.begin(), gone_.end());
  gone_.clear();
  return std::move(exits_);
}

void ForkServer::Stop() {
  if (fd_ < 0) return;
  // At the end of its stream the server kills its workers, waits for them
  // and exits.
  ::close(fd_);
  fd_ = -1;
  WaitFor(pid_);
  pid_ = 0;
  exits_.clear();
}

bool ForkServer::Send(const std::string& packet) {
  // Taking the server's reports while waiting to send, and never longer
  // than a start may take: a stopped server is an error, not a hang.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kAnswerTimeoutMs);
  for (;;) {
    if (::send(fd_, packet.data(), packet.size(), MSG_NOSIGNAL | MSG_DONTWAIT) >= 0) return true;
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) return false;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    struct pollfd p {fd_, POLLOUT | POLLIN, 0};
    if (left.count() <= 0 || ::poll(&p, 1, static_cast<int>(left.count())) == 0) {
      errno = ETIMEDOUT;
      return false;
    }
    std::string report;
    bool closed = false;
    while (Receive(&report, 0, &closed)) Record(report);
    if (closed) {
      errno = EPIPE;
      return false;
    }
  }
}

bool ForkServer::Receive(std::string* packet, int timeout_ms, bool* closed) {
  struct pollfd p {fd_, POLLIN, 0};
  int ready;
  while ((ready = ::poll(&p, 1, timeout_ms)) < 0 && errno == EINTR) {
  }
  if (ready <= 0) return false;
  const int got = ReceivePacket(fd_, packet, MSG_DONTWAIT);
  if (got == 0) *closed = true;
  return got == 1;
}

void ForkServer::Record(const std::string& packet) {
  if (packet.empty() || packet[0] != kExit) return;
  char* rest = nullptr;
  ForkedExit e;
  e.pid = static_cast<pid_t>(std::strtol(packet.c_str() + 1, &rest, 10));
  e.wait_status = static_cast<int>(std::strtol(rest, nullptr, 10));
  exits_.push_back(e);
}

void ForkServer::Reap() {
  gone_.push_back(generation_);
  ::close(fd_);
  fd_ = -1;
  ::kill(pid_, SIGKILL);
  WaitFor(pid_);
  pid_ = 0;
}

}  // namespace fiber::backend
