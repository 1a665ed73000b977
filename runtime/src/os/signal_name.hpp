// Signals by the names people know them by, for reports of how a process
// ended: "killed by SIGSEGV" says what "killed by signal 11" makes one look
// up. The one place that names a signal.
#pragma once

#include <string>

namespace fiber {

/// "SIGSEGV" for 11; "signal N" for a number without a name.
std::string SignalName(int signal);

/// How a process ended, from its status as backends report it (N >= 0 its
/// exit status, -N killed by signal N): "exit status 3", "killed by SIGKILL".
std::string DescribeStatus(int status);

}  // namespace fiber
