// A thread fiber starts for its own work (the run's I/O thread, admission,
// a worker's master watch, watchers of engines and jobs): it starts with
// every asynchronous signal blocked, so a program's own handlers (a graceful
// SIGTERM, SIGALRM, a profiler's SIGPROF) run on the program's threads and
// never interrupt fiber's polls. Nothing on it can end the process through
// an uncaught exception: what escapes its body goes to its owner's error
// path. Every thread fiber starts is started here, and the processes it
// spawns do not inherit that mask.
#pragma once

#include <signal.h>
#include <spawn.h>

#include <functional>
#include <string>
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

/// Hands the exception being handled to on_error as "TYPE: what()"
/// ("std::bad_alloc: std::bad_alloc"); call inside a catch block. If that
/// throws too (memory still short), nothing more is said.
void ReportEscaped(const std::function<void(const std::string& what)>& on_error) noexcept;

/// Starts body on a thread of fiber's own. An exception escaping body (an
/// engine's or API server's answer fiber did not expect, bad_alloc) goes to
/// on_error, described, to become the owner's one error (a failed run, a
/// warning, an error line), not std::terminate ending the program.
template <class F, class E>
std::thread StartBackgroundThread(F&& body, E&& on_error) {
  AsyncSignalsBlocked blocked;
  return std::thread([body = std::forward<F>(body), on_error = std::forward<E>(on_error)]() mutable {
    try {
      body();
    } catch (...) {
      ReportEscaped(on_error);
    }
  });
}

}  // namespace fiber
