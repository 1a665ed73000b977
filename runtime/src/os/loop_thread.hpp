// The one shape of a thread (or a few) that loops over work guarded by one
// lock: it starts once, waits on one condition that every change and the
// stop wake, and stops once, joined. The engine watch, the Slurm job
// canceller and the request queue (pod requests, array submissions,
// container starts) are each a LoopThread and the state its lock guards.
// Thread-safe.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "os/mutex.hpp"

namespace fiber::os {

class LoopThread {
 public:
  using Clock = std::chrono::steady_clock;

  LoopThread() = default;
  /// Stop: the owner's state must outlive the threads, so an owner whose
  /// threads read its members calls Stop in its own destructor.
  ~LoopThread() { Stop(); }
  LoopThread(const LoopThread&) = delete;
  LoopThread& operator=(const LoopThread&) = delete;

  /// Starts threads threads running body (os/background_thread.hpp): what
  /// escapes body goes to on_error, described. Once only.
  void Start(std::function<void()> body, std::function<void(const std::string& what)> on_error, int threads = 1);
  /// Sets stopping(), wakes every wait and joins the threads; again, nothing.
  void Stop();

  /// The lock that guards the owner's state (FIBER_GUARDED_BY(loop_.mu())).
  Mutex& mu() const FIBER_RETURNS_LOCK(mu_) { return mu_; }
  /// Set by Stop, under mu(): a call blocked on an engine can take it as
  /// its cancel flag.
  const std::atomic<bool>& stopping() const { return stop_; }
  /// Wakes every wait: call after a change they may wait for.
  void Notify() { changed_.notify_all(); }

  /// Waits on lock (of mu()) until ready() or stopping(); ready is a
  /// lambda FIBER_REQUIRES(mu()) when it reads guarded state.
  template <class Ready>
  void Wait(MutexLock& lock, Ready ready) FIBER_REQUIRES(mu_) {
    lock.Wait(changed_, [&]() FIBER_NOT_CHECKED { return stop_ || ready(); });
  }
  /// Waits on lock until ready(), stopping() or deadline; false at the
  /// deadline with neither.
  template <class Ready>
  bool WaitUntil(MutexLock& lock, Clock::time_point deadline, Ready ready) FIBER_REQUIRES(mu_) {
    return lock.WaitUntil(changed_, deadline, [&]() FIBER_NOT_CHECKED { return stop_ || ready(); });
  }
  /// Waits on lock until stopping() or deadline; whether it stopped.
  bool SleepUntil(MutexLock& lock, Clock::time_point deadline) FIBER_REQUIRES(mu_) {
    return WaitUntil(lock, deadline, [] { return false; });
  }

 private:
  mutable Mutex mu_;
  std::condition_variable changed_;
  std::atomic<bool> stop_{false};
  std::vector<std::thread> threads_;
};

}  // namespace fiber::os
