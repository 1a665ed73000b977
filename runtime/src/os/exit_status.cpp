#include "os/exit_status.hpp"

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

std::string ExitStatus::Describe() const {
  return killed() ? "killed by " + SignalName(signal()) : "exit status " + std::to_string(status_);
}

}  // namespace fiber
