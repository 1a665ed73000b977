#include "backend/engine_watch.hpp"

#include <algorithm>

#include "os/mutex.hpp"

namespace fiber::backend {

std::string WatchLoop::error() const {
  os::MutexLock lock(loop_.mu());
  return error_;
}

std::chrono::steady_clock::duration NextWait(const WatchPace& pace, std::chrono::steady_clock::duration last,
                                             bool unchanged) {
  if (!unchanged || pace.relaxed_to <= pace.after_success) return pace.after_success;
  return std::clamp(last * 2, pace.after_success, pace.relaxed_to);
}

void WatchLoop::Unchanged() {
  os::MutexLock lock(loop_.mu());
  unchanged_ = true;
}

void WatchLoop::Hurry() {
  {
    os::MutexLock lock(loop_.mu());
    hurry_ = true;
  }
  loop_.Notify();
}

void WatchLoop::Start(std::function<bool(std::string* err)> step, WatchPace pace, std::string internal_error) {
  const auto loop = [this, step = std::move(step), pace] {
    Clock::duration relaxed = pace.after_success;
    while (!loop_.stopping()) {
      {
        os::MutexLock lock(loop_.mu());
        unchanged_ = false;
      }
      std::string err;
      const bool worked = step(&err);
      os::MutexLock lock(loop_.mu());
      if (loop_.stopping()) return;  // a step cut short by Stop failed for no reason of the engine's
      if (!worked) {
        error_ = err;
        loop_.Notify();
      }
      relaxed = NextWait(pace, relaxed, unchanged_ && !hurry_);
      const auto stepped = Clock::now();
      if (!loop_.WaitUntil(lock, stepped + (worked ? relaxed : pace.after_failure), [this]() FIBER_REQUIRES(loop_.mu()) { return hurry_; }))
        continue;
      if (loop_.stopping()) return;
      // Hurried: at most after_success after the last step, and from there on.
      hurry_ = false;
      relaxed = pace.after_success;
      if (loop_.SleepUntil(lock, stepped + pace.after_success)) return;
    }
  };
  loop_.Start(loop, [this, internal_error = std::move(internal_error)](const std::string& what) {
    {
      os::MutexLock lock(loop_.mu());
      error_ = internal_error + " (" + what + ")";
    }
    loop_.Notify();
  });
}

}  // namespace fiber::backend
