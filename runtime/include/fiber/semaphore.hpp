// fiber::Semaphore and fiber::BoundedSemaphore: multiprocessing's, for any
// process of the run. The count lives in the run's master; an acquire is a
// request it answers once a permit is free, in the order processes asked.
// Permits a process holds are given back when it dies (a killed worker
// leaves nobody waiting forever). A handle: copies, and copies passed to a
// Process or a Pool task as an ordinary argument, all name the same one.
#pragma once

#include <chrono>
#include <cstdint>

#include "fiber/detail/run_object.hpp"
#include "fiber/detail/seconds.hpp"
#include "fiber/errors.hpp"

namespace fiber::detail {

// Through the run's client (api/semaphore.cpp). acquire: false when the
// timeout passed first. Both throw Error for misuse, naming it.
bool semaphore_acquire(const RunObjectRef& s, const Timeout& timeout, const char* where);
void semaphore_release(const RunObjectRef& s, const char* where);

/// What Lock, Semaphore and BoundedSemaphore share: a handle to a semaphore.
class SemaphoreHandle : public RunObjectHandle {
 protected:
  explicit SemaphoreHandle(SemaphoreSpec spec)
      : RunObjectHandle({RunObjectSpec::Kind::kSemaphore, spec}) {}
  bool acquire_within(const Timeout& timeout, const char* where) {
    return semaphore_acquire(ref(), timeout, where);
  }
  void release_one(const char* where) { semaphore_release(ref(), where); }
};

}  // namespace fiber::detail

namespace fiber {

class Semaphore : public detail::SemaphoreHandle {
 public:
  /// A new semaphore of the run with value permits free.
  explicit Semaphore(std::uint32_t value = 1) : SemaphoreHandle({value, detail::SemaphoreSpec::kNoBound, false}) {}

  /// Waits for a permit and takes it.
  void acquire() { acquire_within(std::nullopt, "Semaphore::acquire"); }
  /// Like acquire(); false, taking nothing, when none is free in time.
  template <class Rep, class Period>
  bool acquire(std::chrono::duration<Rep, Period> timeout) {
    return acquire_within(detail::timeout_of(timeout), "Semaphore::acquire");
  }
  /// The same in seconds (0.1; an integer too); Error when negative or NaN.
  bool acquire(detail::Seconds auto seconds) {
    return acquire(detail::seconds_to_timeout(seconds, "Semaphore::acquire"));
  }
  /// Takes a permit if one is free now.
  bool try_acquire() { return acquire(std::chrono::milliseconds(0)); }
  /// Gives a permit back (any process may, as in multiprocessing).
  void release() { release_one(name_); }

 protected:
  Semaphore(std::uint32_t value, std::uint32_t bound, const char* name)
      : SemaphoreHandle({value, bound, false}), name_(name) {}

 private:
  const char* name_ = "Semaphore::release";
};

/// A Semaphore whose release throws Error once it would pass its value.
class BoundedSemaphore : public Semaphore {
 public:
  explicit BoundedSemaphore(std::uint32_t value = 1)
      : Semaphore(value, value, "BoundedSemaphore::release") {}
};

}  // namespace fiber
