#include "os/loop_thread.hpp"

#include "os/background_thread.hpp"

namespace fiber::os {

void LoopThread::Start(std::function<void()> body, std::function<void(const std::string& what)> on_error,
                       int threads) {
  for (int i = 0; i < threads; ++i) threads_.push_back(StartBackgroundThread(body, on_error));
}

void LoopThread::Stop() {
  {
    // Under the lock: a waiter checks stop_ and waits in one step.
    MutexLock lock(mu_);
    stop_ = true;
  }
  changed_.notify_all();
  for (std::thread& thread : threads_)
    if (thread.joinable()) thread.join();
}

}  // namespace fiber::os
