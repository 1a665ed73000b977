// The local backend's fork server: one process per run, the program started
// again before its main() does anything but fiber::init, which forks each
// worker on request (backend/local/fork_protocol.hpp; the master's side is
// ForkClient). A fork of that small, single-threaded process costs a
// fraction of starting the executable afresh (mapping and linking a score
// of libraries, page by page), which is most of what a thousand workers
// cost to start. Workers are its children: it reports their ends, kills
// them on request, and takes them all with it when the master closes its
// end or dies (workers die with their parent). A worker without a log file
// writes into a pipe the server reads: each of its lines goes on to the
// master's stderr headed with its id ("[w3] "), as a container's does, and
// the server's own output headed "[fork-server] ". Single-threaded.
#pragma once

#include "backend/local/fork_protocol.hpp"

#include "config/variables.hpp"

namespace fiber::backend {

/// Run by fiber::init when config::kForkServerFdVariable is set: serves requests on fd
/// until the master closes its end, then kills its workers, waits for them
/// and exits. Returns only in a forked worker, with the worker's
/// environment, output and memory bound in place: fiber::init then serves
/// as that worker.
void RunForkServer(int fd);

}  // namespace fiber::backend
