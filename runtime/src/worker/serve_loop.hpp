// A worker's life: connect to the master, run the pool initializer, then run
// tasks until told to stop. One thread runs the user's functions and uses
// the socket but while one runs, when a second answers REVOKE at once.
// Results of short tasks share a message, and the worker asks for about
// 2 ms of work at a time (worker/result_batch.hpp) so it never idles
// waiting for a round trip. A MasterWatch ends the process if the master
// goes away mid-task.
#pragma once

#include "worker/bootstrap.hpp"
#include "worker/call_outcome.hpp"

namespace fiber::worker {

/// How a worker process ends (its exit status), as PROTOCOL.md lists them.
enum ExitStatus : int {
  kStopped = 0,        // the master said STOP
  kMasterLost = 1,     // the master could not be reached, or went silent
  kBadBootstrap = 2,   // a FIBER_* variable is missing or malformed
  kRefused = 3,        // the master refused this worker
  kInternalError = 4,  // an error escaped the serve loop (a fiber bug)
};

/// Serves until the master says STOP; returns the exit status. Ends the
/// process itself when the master goes away (kMasterLost) or refuses this
/// worker (kRefused). after_call runs after each call, before its result
/// goes (worker/call_outcome.hpp).
int Serve(const Bootstrap& bootstrap, AfterCall after_call);

/// Called by a manager's built-in task, on the serve loop's thread: from
/// now on the loop also serves calls of function on the worker's own
/// endpoint (worker/direct_calls.hpp), which this returns; "" on any other
/// thread or when it cannot listen, and callers go through the master.
std::string ServeDirectCalls(const std::string& function);

}  // namespace fiber::worker
