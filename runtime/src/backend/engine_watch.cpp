#include "backend/engine_watch.hpp"

#include <algorithm>

#include "os/background_thread.hpp"

namespace fiber::backend {

std::string WatchLoop::error() const {
  std::lock_guard<std::mutex> lock(mu_);
  return error_;
}

std::chrono::steady_clock::duration NextWait(const WatchPace& pace, std::chrono::steady_clock::duration last,
                                             bool unchanged) {
  if (!unchanged || pace.relaxed_to <= pace.after_success) return pace.after_success;
  return std::clamp(last * 2, pace.after_success, pace.relaxed_to);
}

void WatchLoop::Unchanged() {
  std::lock_guard<std::mutex> lock(mu_);
  unchanged_ = true;
}

void WatchLoop::Hurry() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    hurry_ = true;
  }
  changed_.notify_all();
}

void WatchLoop::Start(std::function<bool(std::string* err)> step, WatchPace pace, std::string internal_error) {
  const auto loop = [this, step = std::move(step), pace] {
    Clock::duration relaxed = pace.after_success;
    while (!stop_) {
      {
        std::lock_guard<std::mutex> lock(mu_);
        unchanged_ = false;
      }
      std::string err;
      const bool worked = step(&err);
      std::unique_lock<std::mutex> lock(mu_);
      if (stop_) return;  // a step cut short by Stop failed for no reason of the engine's
      if (!worked) {
        error_ = err;
        changed_.notify_all();
      }
      relaxed = NextWait(pace, relaxed, unchanged_ && !hurry_);
      const auto stepped = Clock::now();
      const auto stopped_or_hurried = [this] { return stop_ || hurry_; };
      if (!changed_.wait_until(lock, stepped + (worked ? relaxed : pace.after_failure), stopped_or_hurried))
        continue;
      if (stop_) return;
      // Hurried: at most after_success after the last step, and from there on.
      hurry_ = false;
      relaxed = pace.after_success;
      if (changed_.wait_until(lock, stepped + pace.after_success, [this] { return stop_.load(); })) return;
    }
  };
  thread_ = StartBackgroundThread(loop, [this, internal_error = std::move(internal_error)](const std::string& what) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      error_ = internal_error + " (" + what + ")";
    }
    changed_.notify_all();
  });
}

void WatchLoop::Stop() {
  {
    // Under the lock: the loop checks stop_ and waits in one step.
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  changed_.notify_all();
  if (thread_.joinable()) thread_.join();
}

}  // namespace fiber::backend
