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
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace fiber::os {

class LoopThread {
 public:
  using Clock = std::chrono::steady_clock;
  using Lock = std::unique_lock<std::mutex>;

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

  /// The lock that guards the owner's state.
  std::mutex& mu() const { return mu_; }
  /// Set by Stop, under mu(): a call blocked on an engine can take it as
  /// its cancel flag.
  const std::atomic<bool>& stopping() const { return stop_; }
  /// Wakes every wait: call after a change they may wait for.
  void Notify() { changed_.notify_all(); }

  /// Waits on lock (of mu()) until ready() or stopping().
  template <class Ready>
  void Wait(Lock& lock, Ready ready) {
    changed_.wait(lock, [&] { return stop_ || ready(); });
  }
  /// Waits on lock until ready(), stopping() or deadline; false at the
  /// deadline with neither.
  template <class Ready>
  bool WaitUntil(Lock& lock, Clock::time_point deadline, Ready ready) {
    return changed_.wait_until(lock, deadline, [&] { return stop_ || ready(); });
  }
  /// Waits on lock until stopping() or deadline; whether it stopped.
  bool SleepUntil(Lock& lock, Clock::time_point deadline) {
    return WaitUntil(lock, deadline, [] { return false; });
  }

 private:
  mutable std::mutex mu_;
  std::condition_variable changed_;
  std::atomic<bool> stop_{false};
  std::vector<std::thread> threads_;
};

}  // namespace fiber::os
