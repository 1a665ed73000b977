// A watch of an engine on a thread of its own, the one every backend's
// watch is: the container engine's event stream (ContainerEvents), the API
// server's pod watch (KubernetesBackend), squeue polled every second
// (JobWatch). The engine's one step (read a stream until it ends, or poll
// once) runs again and again until the watch goes, a pace apart; what the
// steps hear is kept as a snapshot, and why the last step failed is kept
// until the engine answers again. The owner reads both, or waits for news.
// An exception escaping a step (an answer fiber did not expect) is the
// watch's error for good: its thread ends, the program does not.
// Thread-safe.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <string>
#include <utility>

#include "os/loop_thread.hpp"
#include "os/mutex.hpp"

namespace fiber::backend {

/// How long after a step the next starts (a politely paced client of a
/// shared engine); the watch going ends the wait.
struct WatchPace {
  std::chrono::steady_clock::duration after_success{};
  std::chrono::steady_clock::duration after_failure = std::chrono::seconds(1);
  /// While steps hear nothing new (the step calls Unchanged), the wait
  /// after each doubles from after_success up to this; not more than
  /// after_success: it never relaxes. Hurry brings it back.
  std::chrono::steady_clock::duration relaxed_to{};
};

/// The wait after a step that worked, the last wait after one having been
/// last: after_success when the step heard news, else twice last, within
/// after_success and relaxed_to.
std::chrono::steady_clock::duration NextWait(const WatchPace& pace, std::chrono::steady_clock::duration last,
                                             bool unchanged);

/// What every EngineWatch has whatever its snapshot: its loop thread
/// (whose lock guards the snapshot) and the error.
class WatchLoop {
 public:
  using Clock = std::chrono::steady_clock;
  WatchLoop(const WatchLoop&) = delete;
  WatchLoop& operator=(const WatchLoop&) = delete;

  /// Why the last step failed, until one works again; "" while it works.
  std::string error() const;
  /// Set as the watch goes: a step blocked on the engine hands it to the
  /// client as its cancel flag, and ends when it is set.
  const std::atomic<bool>& stopping() const { return loop_.stopping(); }
  /// For the step: it heard nothing new, so the pace may relax
  /// (WatchPace::relaxed_to).
  void Unchanged();
  /// For the owner: news is coming (new jobs), so the next step comes at
  /// most after_success after the last, and the pace starts again from it.
  void Hurry();

 protected:
  WatchLoop() = default;
  ~WatchLoop() { Stop(); }
  /// Runs step until Stop: false with *err when it failed. internal_error
  /// heads what an escaping exception says.
  void Start(std::function<bool(std::string* err)> step, WatchPace pace, std::string internal_error);
  /// Ends the wait between steps, sets stopping() and joins the thread.
  void Stop() { loop_.Stop(); }

  os::LoopThread loop_;  // notified on news: a step heard something, or failed
  std::string error_ FIBER_GUARDED_BY(loop_.mu());

 private:
  bool unchanged_ FIBER_GUARDED_BY(loop_.mu()) = false;
  bool hurry_ FIBER_GUARDED_BY(loop_.mu()) = false;
};

template <class Snapshot>
class EngineWatch : public WatchLoop {
 public:
  /// The engine's one step, on the watch's thread: reads the engine until
  /// it has read what it asked for, or watch.stopping(), handing what it
  /// hears to watch.Heard; false with *err when it failed.
  using Step = std::function<bool(EngineWatch& watch, std::string* err)>;

  /// Starts watching: the first step starts at once.
  EngineWatch(Step step, WatchPace pace, std::string internal_error = "an internal error") {
    Start([this, step = std::move(step)](std::string* err) { return step(*this, err); }, pace,
          std::move(internal_error));
  }
  ~EngineWatch() { Stop(); }

  /// For the step: change applied to the snapshot; the engine answered, so
  /// the error goes, and waiters wake.
  template <class F>
  void Heard(F&& change) {
    {
      os::MutexLock lock(loop_.mu());
      change(snapshot_);
      error_.clear();
    }
    loop_.Notify();
  }
  /// For the owner: change applied to the snapshot (forgetting what it took).
  template <class F>
  void Change(F&& change) {
    os::MutexLock lock(loop_.mu());
    change(snapshot_);
  }
  /// What read(snapshot, error) returns, called under the watch's lock.
  template <class F>
  auto Read(F&& read) const {
    os::MutexLock lock(loop_.mu());
    return read(static_cast<const Snapshot&>(snapshot_), static_cast<const std::string&>(error_));
  }
  /// A copy of the snapshot.
  Snapshot snapshot() const {
    os::MutexLock lock(loop_.mu());
    return snapshot_;
  }
  /// Waits until done(snapshot, error) holds, at most limit; whether it holds.
  template <class F>
  [[nodiscard]] bool Wait(Clock::duration limit, F&& done) {
    os::MutexLock lock(loop_.mu());
    const auto holds = [&]() FIBER_REQUIRES(loop_.mu()) {
      return done(static_cast<const Snapshot&>(snapshot_), static_cast<const std::string&>(error_));
    };
    loop_.WaitUntil(lock, Clock::now() + limit, holds);
    return holds();
  }

 private:
  Snapshot snapshot_ FIBER_GUARDED_BY(loop_.mu());
};

}  // namespace fiber::backend
