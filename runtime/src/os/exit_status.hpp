// How a process ended: the exit status it gave, or the signal that killed
// it. The one home of its wording ("exit status 3", "killed by SIGKILL")
// and of the shells' encoding as one number (128 + N for signal N), which
// docker run, fiber run and container runtimes use. A plain value;
// thread-safe as any.
#pragma once

#include <sys/types.h>

#include <string>

namespace fiber {

class ExitStatus {
 public:
  ExitStatus() = default;
  static ExitStatus Exited(int code) { return ExitStatus(code); }
  static ExitStatus Killed(int signal) { return ExitStatus(-signal); }
  /// From the signed form Killed and Exited keep: N >= 0 exit status N,
  /// -N killed by signal N (backend::Exit::status).
  static ExitStatus FromSigned(int status) { return ExitStatus(status); }
  /// From one number as shells and container runtimes give it: 128 + N for
  /// a signal N (up to 64), any other the exit status itself.
  static ExitStatus FromCode(long code);
  /// From a waitpid status (or squeue's exit code, which is one).
  static ExitStatus FromWait(int wait_status);

  bool killed() const { return status_ < 0; }
  /// The signal that killed it; 0 when it exited.
  int signal() const { return killed() ? -status_ : 0; }
  /// N >= 0 its exit status, -N killed by signal N.
  int as_signed() const { return status_; }
  /// As shells give it: the exit status, or 128 + N when killed by signal N.
  int code() const { return killed() ? 128 + signal() : status_; }
  /// "exit status 3", "killed by SIGKILL".
  std::string Describe() const;

  bool operator==(const ExitStatus& other) const { return status_ == other.status_; }

 private:
  explicit ExitStatus(int status) : status_(status) {}
  int status_ = 0;
};

/// Waits for the child pid to end, through interruptions, and says how it
/// ended (exit status 0 when pid is not a child of this process).
ExitStatus WaitForChild(pid_t pid);

}  // namespace fiber
