// A thread fiber starts for its own work (the run's I/O thread, admission,
// a worker's master watch, watchers of engines and jobs): it starts with
// every asynchronous signal blocked, so a program's own handlers (a graceful
// SIGTERM, SIGALRM, a profiler's SIGPROF) run on the program's threads and
// never interrupt fiber's polls. Every thread fiber starts is started here,
// and the processes it spawns do not inherit that mask.
#pragma once

#include <signal.h>
#include <spawn.h>

#include <thread>
#include <utility>

namespace fiber {

/// Blocks the asynchronous signals in the calling thread while it lives;
/// a thread started meanwhile inherits the mask.
class AsyncSignalsBlocked {
 public:
  AsyncSignalsBlocked();
  ~AsyncSignalsBlocked();
  AsyncSignalsBlocked(const AsyncSignalsBlocked&) = delete;
  AsyncSignalsBlocked& operator=(const AsyncSignalsBlocked&) = delete;

 private:
  sigset_t previous_;
};

/// Makes a process spawned with attr start with no signal blocked, as a
/// program expects, even when one of fiber's threads spawns it.
void UnblockSignalsOnSpawn(posix_spawnattr_t* attr);

template <class F>
std::thread StartBackgroundThread(F&& body) {
  AsyncSignalsBlocked blocked;
  return std::thread(std::forward<F>(body));
}

}  // namespace fiber
