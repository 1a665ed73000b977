// A worker's life: connect to the master, run the pool initializer, then run
// tasks until told to stop. Two threads, each owning its sockets: the link
// thread talks to the master (and keeps heartbeats going while a task runs);
// the calling thread runs the user's functions.
#pragma once

#include "worker/bootstrap.hpp"

namespace fiber::worker {

/// Serves until the master says STOP; returns the process exit status. Ends
/// the process itself (status 1) when the master goes silent, and (status 3)
/// when the master refuses this worker.
int Serve(const Bootstrap& bootstrap);

}  // namespace fiber::worker
