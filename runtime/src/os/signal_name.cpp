#include "os/signal_name.hpp"

#include <string.h>

namespace fiber {

std::string SignalName(int signal) {
  // glibc's abbreviation ("SEGV"); real-time signals have none.
  if (const char* abbrev = ::sigabbrev_np(signal)) return std::string("SIG") + abbrev;
  return "signal " + std::to_string(signal);
}

std::string DescribeStatus(int status) {
  return status < 0 ? "killed by " + SignalName(-status) : "exit status " + std::to_string(status);
}

}  // namespace fiber
