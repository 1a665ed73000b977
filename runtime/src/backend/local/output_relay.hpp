// The fork server's side of its workers' output when the run keeps no log
// files (a program run without fiber run): each worker writes into a pipe of
// its own, and each line read from it goes on to the master's stderr headed
// with the worker's id ("[w3] ", worker_output.hpp), so local workers'
// output reads as a container's does and `./sweep | sort` sees what
// `fiber run ./sweep | sort` sees. Lines are cut by LineSplitter: time
// linear in the output, memory bounded. Used by RunForkServer only, on its
// one thread. Not thread-safe.
#pragma once

#include <poll.h>

#include <memory>
#include <string>
#include <vector>

#include "backend/line_splitter.hpp"
#include "os/descriptor.hpp"

namespace fiber::backend {

class OutputRelay {
 public:
  /// Headed lines are written to out_fd (blocking, as the workers' own
  /// writes to the master's stderr would).
  explicit OutputRelay(int out_fd) : out_fd_(out_fd) {}
  OutputRelay(const OutputRelay&) = delete;
  OutputRelay& operator=(const OutputRelay&) = delete;

  /// A new pipe whose lines are headed "[id] ": its write end (close-on-
  /// exec) for the writer to take, or -1 with *err.
  [[nodiscard]] int Open(const std::string& id, std::string* err);
  /// Appends a pollfd per open pipe to *fds.
  void AddPollFds(std::vector<pollfd>* fds) const;
  /// Reads the pipes fds[first...] found ready (as AddPollFds added them)
  /// and writes the lines they complete; closes those at their end.
  void Relay(const std::vector<pollfd>& fds, std::size_t first);
  /// Reads what every pipe holds, without waiting, and writes it all,
  /// unfinished lines too: the end of the relay.
  void Drain();
  /// Closes every descriptor without writing: in a forked worker, which
  /// must hold none of them (a pipe ends only when its last writer goes).
  void Abandon();

 private:
  struct Pipe {
    os::Descriptor fd;
    std::unique_ptr<LineSplitter> lines;
  };
  /// Reads once from p (up to 64 KiB): 1 when it read, 0 at its end (or
  /// on an error), -1 when it holds nothing now.
  int ReadFrom(Pipe& p);
  void WriteOut();

  int out_fd_;
  std::vector<Pipe> pipes_;
  std::string out_;  // headed lines not yet written
};

}  // namespace fiber::backend
