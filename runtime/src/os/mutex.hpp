// A mutex and its scoped lock that clang's thread-safety analysis checks
// (-Wthread-safety: test/thread_safety_check, which test/run runs), and
// the annotations guarded members and the functions that need a lock carry. Every lock of
// the runtime, the command and the image code is one of these; under GCC
// the annotations are nothing.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>

#if defined(__clang__)
#define FIBER_THREAD_ANNOTATION(x) __attribute__((x))
#else
#define FIBER_THREAD_ANNOTATION(x)
#endif

/// A member or variable read and written only with mu held.
#define FIBER_GUARDED_BY(mu) FIBER_THREAD_ANNOTATION(guarded_by(mu))
/// A function (or a predicate lambda) called only with these held.
#define FIBER_REQUIRES(...) FIBER_THREAD_ANNOTATION(requires_capability(__VA_ARGS__))
/// A function that takes these itself: its callers must not hold them.
#define FIBER_EXCLUDES(...) FIBER_THREAD_ANNOTATION(locks_excluded(__VA_ARGS__))
/// An accessor returning the mutex mu, so guards may name it through it.
#define FIBER_RETURNS_LOCK(mu) FIBER_THREAD_ANNOTATION(lock_returned(mu))
/// Not checked: a wrapper that only passes on a predicate checked where it
/// was written (the analysis cannot follow the lock into it).
#define FIBER_NOT_CHECKED FIBER_THREAD_ANNOTATION(no_thread_safety_analysis)

namespace fiber::os {

class FIBER_THREAD_ANNOTATION(capability("mutex")) Mutex {
 public:
  void lock() FIBER_THREAD_ANNOTATION(acquire_capability()) { mu_.lock(); }
  void unlock() FIBER_THREAD_ANNOTATION(release_capability()) { mu_.unlock(); }

 private:
  friend class MutexLock;
  std::mutex mu_;
};

/// Holds a Mutex from construction to destruction (or Unlock); its waits
/// release it while they wait on a condition variable, as std::unique_lock's.
/// A predicate reading guarded members says so: [&]() FIBER_REQUIRES(mu_) {...}.
class FIBER_THREAD_ANNOTATION(scoped_lockable) MutexLock {
 public:
  explicit MutexLock(Mutex& mu) FIBER_THREAD_ANNOTATION(acquire_capability(mu)) : lock_(mu.mu_) {}
  ~MutexLock() FIBER_THREAD_ANNOTATION(release_capability()) {}
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

  /// Lets go early (a call that must not hold it follows); Lock takes it again.
  void Unlock() FIBER_THREAD_ANNOTATION(release_capability()) { lock_.unlock(); }
  void Lock() FIBER_THREAD_ANNOTATION(acquire_capability()) { lock_.lock(); }

  template <class Ready>
  void Wait(std::condition_variable& cv, Ready ready) {
    cv.wait(lock_, ready);
  }
  /// False when the deadline came with ready() still false.
  template <class Clock, class Duration, class Ready>
  bool WaitUntil(std::condition_variable& cv, std::chrono::time_point<Clock, Duration> deadline, Ready ready) {
    return cv.wait_until(lock_, deadline, ready);
  }
  /// Waits until woken or the wait is over (either may come first, or a
  /// spurious wake): callers loop on what they wait for.
  template <class Rep, class Period>
  void WaitFor(std::condition_variable& cv, std::chrono::duration<Rep, Period> wait) {
    (void)cv.wait_for(lock_, wait);
  }
  template <class Rep, class Period, class Ready>
  bool WaitFor(std::condition_variable& cv, std::chrono::duration<Rep, Period> wait, Ready ready) {
    return cv.wait_for(lock_, wait, ready);
  }

 private:
  std::unique_lock<std::mutex> lock_;
};

}  // namespace fiber::os
