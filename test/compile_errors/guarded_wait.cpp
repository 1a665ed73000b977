// expect: compiles
// Guarded members read under their lock, in a predicate that says it runs
// under it, and in a function that requires it: clang's analysis passes.
#include <condition_variable>

#include "os/mutex.hpp"

class Gate {
 public:
  void Open() {
    fiber::os::MutexLock lock(mu_);
    SetOpen();
    opened_.notify_all();
  }
  void WaitOpen() {
    fiber::os::MutexLock lock(mu_);
    lock.Wait(opened_, [this]() FIBER_REQUIRES(mu_) { return open_; });
  }

 private:
  void SetOpen() FIBER_REQUIRES(mu_) { open_ = true; }

  fiber::os::Mutex mu_;
  std::condition_variable opened_;
  bool open_ FIBER_GUARDED_BY(mu_) = false;
};

int main() {
  Gate gate;
  gate.Open();
  gate.WaitOpen();
}
