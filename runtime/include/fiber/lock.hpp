// fiber::Lock: multiprocessing's Lock, for any process of the run, usable
// with std::lock_guard and std::unique_lock. Held in the run's master;
// waiters get it in the order they asked. Only the process holding it may
// release it (else Error), and it is released when that process dies, so
// a killed worker leaves nobody waiting forever. A handle: copies, and
// copies passed to a Process or a Pool task, all name the same lock.
// Not recursive: a process (any of its threads) holding it that acquires
// it again waits for itself.
#pragma once

#include <chrono>

#include "fiber/detail/seconds.hpp"
#include "fiber/semaphore.hpp"

namespace fiber {

class Lock : public detail::SemaphoreHandle {
 public:
  /// A new, unlocked lock of the run.
  Lock() : SemaphoreHandle({1, 1, true}) {}

  /// Waits for the lock and takes it.
  void acquire() { acquire_within(std::nullopt, "Lock::acquire"); }
  /// Like acquire(); false, taking nothing, when it is not free in time.
  template <class Rep, class Period>
  bool acquire(std::chrono::duration<Rep, Period> timeout) {
    return acquire_within(detail::timeout_of(timeout), "Lock::acquire");
  }
  /// The same in seconds (0.1; an integer too); Error when negative or NaN.
  bool acquire(detail::Seconds auto seconds) {
    return acquire(detail::seconds_to_timeout(seconds, "Lock::acquire"));
  }
  /// Throws Error when this process does not hold it.
  void release() { release_one("Lock::release"); }

  // The standard Lockable names.
  void lock() { acquire(); }
  bool try_lock() { return acquire(std::chrono::milliseconds(0)); }
  void unlock() { release(); }
};

}  // namespace fiber
