// A worker's life: connect to the master, run the pool initializer, then run
// tasks until told to stop. One thread owns the socket and runs the user's
// functions; results of short tasks share a message, and the worker asks for
// about kWorkAhead of work at a time so it never idles waiting for a round
// trip. A MasterWatch ends the process if the master goes away mid-task.
#pragma once

#include "worker/bootstrap.hpp"

namespace fiber::worker {

/// Serves until the master says STOP; returns the process exit status. Ends
/// the process itself (status 1) when the master goes away, and (status 3)
/// when the master refuses this worker.
int Serve(const Bootstrap& bootstrap);

}  // namespace fiber::worker
