// expect: reading variable 'n_' requires holding mutex 'mu_'
// A guarded member read without its lock stops a clang build
// (-Wthread-safety, os/mutex.hpp).
#include "os/mutex.hpp"

class Counter {
 public:
  int Read() const { return n_; }

 private:
  mutable fiber::os::Mutex mu_;
  int n_ FIBER_GUARDED_BY(mu_) = 0;
};

int main() { return Counter().Read(); }
