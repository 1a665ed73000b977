// fiber::Event: multiprocessing's Event, for any process of the run: a flag
// in the run's master that processes wait on until some process sets it.
// A handle: copies, and copies passed to a Process or a Pool task, all
// name the same event.
#pragma once

#include <chrono>

#include "fiber/detail/run_object.hpp"
#include "fiber/detail/seconds.hpp"
#include "fiber/errors.hpp"

namespace fiber::detail {

// Through the run's client (api/event.cpp).
void event_set(const RunObjectRef& e, bool set, const char* where);
/// True once set; false when the timeout passed first (0: is it set now?).
bool event_wait(const RunObjectRef& e, const Timeout& timeout, const char* where);

}  // namespace fiber::detail

namespace fiber {

class Event : public detail::RunObjectHandle {
 public:
  /// A new event of the run, not set.
  Event() : RunObjectHandle({detail::RunObjectSpec::Kind::kEvent, {}}) {}

  /// Sets the flag and wakes every process waiting on it.
  void set() { detail::event_set(ref(), true, "Event::set"); }
  void clear() { detail::event_set(ref(), false, "Event::clear"); }
  bool is_set() { return detail::event_wait(ref(), std::chrono::milliseconds(0), "Event::is_set"); }
  /// Waits until the flag is set.
  void wait() { detail::event_wait(ref(), std::nullopt, "Event::wait"); }
  /// Like wait(); false when it was not set in time.
  template <class Rep, class Period>
  bool wait(std::chrono::duration<Rep, Period> timeout) {
    return detail::event_wait(ref(), detail::timeout_of(timeout), "Event::wait");
  }
  /// The same in seconds (0.1; an integer too); Error when negative or NaN.
  bool wait(detail::Seconds auto seconds) { return wait(detail::seconds_to_timeout(seconds, "Event::wait")); }
};

}  // namespace fiber
