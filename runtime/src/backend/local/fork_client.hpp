// The master's side of the local backend's fork server
// (backend/local/fork_server.hpp): it starts the server (the program again,
// /proc/self/exe with the same arguments), asks it to fork workers and to
// kill them, and takes its reports of their ends, over the packets of
// backend/local/fork_protocol.hpp. A server found gone is started again on
// the next fork: each is one generation, and its workers went with it.
// Driven from the master's I/O thread only, like every backend; not
// thread-safe.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "backend/local/fork_protocol.hpp"

namespace fiber::backend {

class ForkClient {
 public:
  ForkClient() = default;
  /// Stops the server.
  ~ForkClient();
  ForkClient(const ForkClient&) = delete;
  ForkClient& operator=(const ForkClient&) = delete;

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

}  // namespace fiber::backend
