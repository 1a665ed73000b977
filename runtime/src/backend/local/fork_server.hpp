// The local backend's fork server: one process per backend, the program
// started again before its main() does anything but fiber::init, which
// forks each worker on request. A fork of that small, single-threaded
// process costs a fraction of starting the executable afresh (mapping and
// linking a score of libraries, page by page), which is most of what a
// thousand workers cost to start. Workers are its children: it reports
// their ends, kills them on request, and takes them all with it when the
// master closes its end or dies (workers die with their parent). A worker
// without a log file writes into a pipe the server reads: each of its lines
// goes on to the master's stderr headed with its id ("[w3] "), as a
// container's does, and the server's own output headed "[fork-server] ".
//
// The master's side (ForkServer) is driven from the master's I/O thread
// only, like every backend. Requests and reports are SOCK_SEQPACKET
// packets: a request to start carries the worker's whole environment, its
// log file and memory bound; the server answers with the pid or the reason.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "config/variables.hpp"

namespace fiber::backend {

/// Set in the fork server's environment: the descriptor of its end.
inline constexpr const char* kForkServerFd = config::kForkServerFdVariable;

/// What one worker is started with.
struct ForkRequest {
  std::vector<std::string> environment;  // NAME=value, the worker's whole
  std::string log_file;                  // empty: the master's stderr, headed
  std::string worker_id;                 // heads its lines on the master's stderr
  std::int64_t memory_mb = 0;            // 0: no bound on its address space
};

/// A worker the fork server saw end: its pid and wait status.
struct ForkedExit {
  pid_t pid = 0;
  int wait_status = 0;
};

class ForkServer {
 public:
  ForkServer() = default;
  ~ForkServer();
  ForkServer(const ForkServer&) = delete;
  ForkServer& operator=(const ForkServer&) = delete;

  /// Starts the server unless it runs; false with *err when it cannot.
  [[nodiscard]] bool Ensure(std::string* err);
  /// The server's pid (its workers' parent); 0 when none runs.
  pid_t pid() const { return pid_; }
  /// Counts the servers started: a worker belongs to the one that forked it.
  int generation() const { return generation_; }
  /// Forks a worker (starting a server again if the last one is gone); its
  /// pid, or 0 with *err.
  pid_t Fork(const ForkRequest& request, std::string* err);
  /// SIGKILLs a worker of the server's, unless it has ended already.
  void Kill(pid_t pid);
  /// Workers that ended since the last call; never blocks. Servers found
  /// gone are added to *gone (their generations): their workers went with
  /// them.
  std::vector<ForkedExit> Poll(std::vector<int>* gone);
  /// Ends the server and every worker, and waits until all are gone.
  void Stop();

 private:
  bool Send(const std::string& packet);
  /// Reads one packet, waiting up to timeout_ms (-1: no limit); false when
  /// none came, or the server closed its end (*closed then set).
  bool Receive(std::string* packet, int timeout_ms, bool* closed);
  void Record(const std::string& exit_packet);
  void Reap();

  int fd_ = -1;
  pid_t pid_ = 0;
  int generation_ = 0;
  std::vector<ForkedExit> exits_;  // reported while waiting for an answer
  std::vector<int> gone_;          // servers found gone, until Poll
};

/// The server's side, run by fiber::init when kForkServerFd is set: serves
/// requests until the master closes its end, then kills its workers, waits
/// for them and exits. Returns only in a forked worker, with the worker's
/// environment, output and memory bound in place: fiber::init then serves
/// as that worker.
void RunForkServer(int fd);

}  // namespace fiber::backend
