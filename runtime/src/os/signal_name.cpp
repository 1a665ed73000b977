#include "os/signal_name.hpp"

#include <string.h>

namespace fiber {

std::string SignalName(int signal) {
  // glibc's abbreviation ("SEGV"); real-time signals have none.
  if (const char* abbrev = ::sigabbrev_np(signal)) return std::string("SIG") + abbrev;
  return "signal " + std::to_string(signal);
}

}  // namespace fiber
