#include "backend/local/fork_client.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "backend/command_line.hpp"
#include "os/exit_status.hpp"
#include "config/variables.hpp"
#include "os/background_thread.hpp"

namespace fiber::backend {

namespace {

// How long the master waits for the server's answer to a start: a fork
// takes milliseconds; only a stopped server takes longer.
constexpr int kAnswerTimeoutMs = 30000;

}  // namespace

ForkClient::~ForkClient() { Stop(); }

bool ForkClient::Ensure(std::string* err) {
  if (fd_ >= 0) return true;
  int ends[2];
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, ends) != 0) {
    *err = std::string("cannot start the worker fork server: ") + std::strerror(errno);
    return false;
  }
  // Its end goes to descriptor 3; from any other number, so that dup2
  // clears close-on-exec.
  int theirs = ends[1];
  if (theirs == kForkServerEnd) {
    theirs = ::fcntl(ends[1], F_DUPFD_CLOEXEC, kForkServerEnd + 1);
    ::close(ends[1]);
  }
  std::vector<std::string> args = CommandLine();
  std::vector<std::string> env;
  const std::string marker = std::string(config::kForkServerFdVariable) + "=";
  for (char** e = environ; *e; ++e)
    if (std::strncmp(*e, marker.c_str(), marker.size()) != 0) env.push_back(*e);
  env.push_back(marker + std::to_string(kForkServerEnd));
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
  posix_spawn_file_actions_adddup2(&actions, theirs, kForkServerEnd);
  // Descriptors the program opened without close-on-exec (a log, a socket,
  // a lock) stay its own: inherited, the server and every worker it forks
  // would hold them open, so a file would never see its last close or a
  // peer its hangup. What the program opens again on its way to
  // fiber::init is its workers' by design.
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
  posix_spawn_file_actions_addclosefrom_np(&actions, kForkServerEnd + 1);
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

pid_t ForkClient::Fork(const ForkRequest& request, std::string* err) {
  const std::string packet = EncodeStart(request);
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
    if (Is(answer, ForkPacket::kExit)) {
      Record(answer);
    } else if (Is(answer, ForkPacket::kPid)) {
      return DecodePid(answer);
    } else if (Is(answer, ForkPacket::kError)) {
      *err = DecodeError(answer);
      return 0;
    }
  }
}

void ForkClient::Kill(pid_t pid) {
  if (fd_ >= 0) (void)Send(EncodePid(ForkPacket::kKill, pid));
}

std::vector<ForkedExit> ForkClient::Poll(std::vector<int>* gone) {
  std::string packet;
  bool closed = false;
  while (fd_ >= 0 && Receive(&packet, 0, &closed)) Record(packet);
  if (closed) Reap();
  gone->insert(gone->end(), gone_.begin(), gone_.end());
  gone_.clear();
  return std::move(exits_);
}

void ForkClient::Stop() {
  if (fd_ < 0) return;
  // At the end of its stream the server kills its workers, waits for them
  // and exits.
  ::close(fd_);
  fd_ = -1;
  WaitForChild(pid_);
  pid_ = 0;
  exits_.clear();
}

bool ForkClient::Send(const std::string& packet) {
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

bool ForkClient::Receive(std::string* packet, int timeout_ms, bool* closed) {
  struct pollfd p {fd_, POLLIN, 0};
  int ready;
  while ((ready = ::poll(&p, 1, timeout_ms)) < 0 && errno == EINTR) {
  }
  if (ready <= 0) return false;
  const int got = ReceivePacket(fd_, packet, MSG_DONTWAIT);
  if (got == 0) *closed = true;
  return got == 1;
}

void ForkClient::Record(const std::string& packet) {
  if (Is(packet, ForkPacket::kExit)) exits_.push_back(DecodeExit(packet));
}

void ForkClient::Reap() {
  gone_.push_back(generation_);
  ::close(fd_);
  fd_ = -1;
  ::kill(pid_, SIGKILL);
  WaitForChild(pid_);
  pid_ = 0;
}

}  // namespace fiber::backend
