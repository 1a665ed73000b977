#include "backend/engine_watch.hpp"

#include "os/background_thread.hpp"

namespace fiber::backend {

std::string WatchLoop::error() const {
  std::lock_guard<std::mutex> lock(mu_);
  return error_;
}

void WatchLoop::Start(std::function<bool(std::string* err)> step, WatchPace pace, std::string internal_error) {
  const auto loop = [this, step = std::move(step), pace] {
    while (!stop_) {
      std::string err;
      const bool worked = step(&err);
      std::unique_lock<std::mutex> lock(mu_);
      if (stop_) return;  // a step cut short by Stop failed for no reason of the engine's
      if (!worked) {
        error_ = err;
        changed_.notify_all();
      }
      if (changed_.wait_for(lock, worked ? pace.after_success : pace.after_failure, [this] { return stop_.load(); }))
        return;
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
