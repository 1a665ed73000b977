// Signals by the names people know them by, for reports of how a process
// ended: "killed by SIGSEGV" says what "killed by signal 11" makes one look
// up. The one place that names a signal.
#pragma once

#include <string>

namespace fiber {

/// "SIGSEGV" for 11; "signal N" for a number without a name.
std::string SignalName(int signal);

}  // namespace fiber
