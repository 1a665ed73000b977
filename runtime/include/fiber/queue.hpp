// fiber::Queue<T> and fiber::SimpleQueue<T>: many producers and consumers in
// any process of the run. The items live in the run's master; a get is a
// request the master answers when an item is there, so delivery is fair
// and load-aware (an item goes to a consumer that is waiting for one, in
// the order they asked), no item is delivered twice, and a consumer that
// dies loses nothing it had not taken. Unbounded (no maxsize), but a
// worker may leave only so much in queues (README, Security).
//
// A Queue is a handle: copies, and copies passed to a Process or a Pool
// task as an ordinary argument, all name the same queue.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "fiber/detail/run_object.hpp"
#include "fiber/errors.hpp"
#include "fiber/serialize.hpp"

namespace fiber::detail {

using QueueRef = RunObjectRef;

// The untyped operations, through the run's client (api/queue.cpp). They throw
// Closed, TimeoutError, or Error for a handle of another run.
void queue_put(const QueueRef& q, std::string item, const char* where);
std::string queue_get(const QueueRef& q, const Timeout& timeout, const char* where);
/// True once the queue holds an item; false when the timeout passed first.
bool queue_poll(const QueueRef& q, const Timeout& timeout, const char* where);
bool queue_empty(const QueueRef& q, const char* where);
void queue_close(const QueueRef& q, const char* where);

}  // namespace fiber::detail

namespace fiber {

template <class T>
class Queue : public detail::RunObjectHandle {
 public:
  /// A new, empty queue of the run.
  Queue() : RunObjectHandle(detail::RunObjectSpec{}) {}

  void put(const T& item) { detail::queue_put(ref(), detail::to_bytes(item), "Queue::put"); }
  /// Waits for an item; throws Closed once the queue is closed and empty.
  T get() { return decode(detail::queue_get(ref(), std::nullopt, "Queue::get")); }
  /// Like get(), but throws TimeoutError when no item comes in time.
  template <class Rep, class Period>
  T get(std::chrono::duration<Rep, Period> timeout) {
    return decode(detail::queue_get(ref(), detail::timeout_of(timeout), "Queue::get"));
  }
  /// True when it holds no item right now.
  bool empty() { return detail::queue_empty(ref(), "Queue::empty"); }
  /// No more puts, from any process; gets take what is left, then throw Closed.
  void close() { detail::queue_close(ref(), "Queue::close"); }

 private:
  static T decode(const std::string& bytes) {
    try {
      return detail::from_bytes<T>(bytes);
    } catch (const cereal::Exception& e) {
      throw Error(std::string("a queue item does not decode as the queue's type (") + e.what() + ")");
    }
  }
};

/// multiprocessing's SimpleQueue; here the same as Queue.
template <class T>
using SimpleQueue = Queue<T>;

}  // namespace fiber
