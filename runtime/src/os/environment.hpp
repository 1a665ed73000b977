// How a piece that must read environment variables is handed them: a
// getenv of the caller's choosing (the process's own, a run's recorded
// engine variables, a test's map), so that no layer reads the process's
// environment on its own (GUIDE.md).
#pragma once

#include <functional>

namespace fiber::os {

/// A variable's value, or nullptr when it is not set.
using Getenv = std::function<const char*(const char*)>;

}  // namespace fiber::os
