#include "os/exit_status.hpp"

#include <sys/wait.h>

#include <cerrno>

#include "os/signal_name.hpp"

namespace fiber {

ExitStatus ExitStatus::FromCode(long code) {
  const bool signal = code > 128 && code < 128 + 65;
  return ExitStatus(static_cast<int>(signal ? -(code - 128) : code));
}

ExitStatus ExitStatus::FromWait(int wait_status) {
  const int signal = wait_status & 0x7f;
  return signal != 0 ? Killed(signal) : Exited((wait_status >> 8) & 0xff);
}

ExitStatus WaitForChild(pid_t pid) {
  int ws = 0;
  while (::waitpid(pid, &ws, 0) < 0) {
    if (errno != EINTR) return ExitStatus();
  }
  return ExitStatus::FromWait(ws);
}

std::string ExitStatus::Describe() const {
  return killed() ? "killed by " + SignalName(signal()) : "exit status " + std::to_string(status_);
}

}  // namespace fiber
