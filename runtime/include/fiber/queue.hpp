// fiber::Queue<T> and fiber::SimpleQueue<T>: many producers and consumers in
// any process of the run. The items live in the run's master; a get is a
// request the master answers when an item is there, so delivery is fair
// and load-aware (an item goes to a consumer that is waiting for one, in
// the order they asked), no item is delivered twice, and a consumer that
// dies loses nothing it had not taken. A worker may leave only so much in
// queues (README, Security).
//
// Unbounded (maxsize 0), a put returns once its item is handed to the
// connection (pipelined): an error it meets is raised at the next call on
// that queue that is not a put (or at a later put, if its answer is back
// by then), or at flush(); a task's or Process's result waits for every
// put first. Bounded, a put waits while the queue is full.
//
// A Queue is a handle: copies, and copies passed to a Process or a Pool
// task as an ordinary argument, all name the same queue.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "fiber/detail/got_items.hpp"
#include "fiber/detail/run_object.hpp"
#include "fiber/detail/seconds.hpp"
#include "fiber/errors.hpp"
#include "fiber/serialize.hpp"

namespace fiber::detail {

using QueueRef = RunObjectRef;

/// Appends the bytes of *item (a T) to out.
using WriteBytes = void (*)(const void* item, std::string* out);
template <class T>
void write_bytes(const void* item, std::string* out) {
  append_bytes(*static_cast<const T*>(item), out);
}

// The untyped operations, through the run's client (api/queue.cpp). They throw
// Closed, TimeoutError, or Error for a handle of another run.
/// Waits for the master's answer (while full, up to the timeout).
void queue_put(const QueueRef& q, std::string item, const Timeout& timeout, const char* where);
/// Pipelined on an unbounded queue, the item written straight into what
/// goes; else queue_put.
void queue_send(const QueueRef& q, const void* item, WriteBytes write, const char* where);
void queue_put_many(const QueueRef& q, const std::vector<std::string>& items, const char* where);
/// One item.
GotItems queue_get(const QueueRef& q, const Timeout& timeout, const char* where);
/// 1..n items, waiting only for the first.
GotItems queue_get_many(const QueueRef& q, std::size_t n, const Timeout& timeout,
                        const char* where);
std::size_t queue_size(const QueueRef& q, const char* where);
/// Waits for the answers to this process's pipelined puts; raises the
/// error one on q met.
void queue_flush(const QueueRef& q, const char* where);
/// The same for every queue: what a task's result waits for.
void queue_flush_all(const char* where);
/// True once the queue holds an item; false when the timeout passed first.
bool queue_poll(const QueueRef& q, const Timeout& timeout, const char* where);
bool queue_empty(const QueueRef& q, const char* where);
void queue_close(const QueueRef& q, const char* where);

}  // namespace fiber::detail

namespace fiber {

template <class T>
class Queue : public detail::RunObjectHandle {
 public:
  /// A new, empty queue of the run; maxsize 0: unbounded.
  explicit Queue(std::uint64_t maxsize = 0)
      : RunObjectHandle(detail::RunObjectSpec{detail::RunObjectSpec::Kind::kQueue, {}, maxsize}) {}

  /// Unbounded: returns once the item is handed to the connection (see
  /// above). Bounded: waits while the queue is full.
  void put(const T& item) {
    detail::queue_send(ref(), &item, &detail::write_bytes<T>, "Queue::put");
  }
  /// Waits while the queue is full, up to timeout; then throws
  /// TimeoutError, the item not put.
  template <class Rep, class Period>
  void put(const T& item, std::chrono::duration<Rep, Period> timeout) {
    detail::queue_put(ref(), detail::to_bytes(item), detail::timeout_of(timeout), "Queue::put");
  }
  /// The same in seconds (0.1; an integer too); Error when negative or NaN.
  void put(const T& item, detail::Seconds auto seconds) {
    put(item, detail::seconds_to_timeout(seconds, "Queue::put"));
  }
  /// Puts items in order, in one request; a bounded queue takes them as
  /// room comes, and this waits until all are in.
  void put_many(const std::vector<T>& items) {
    std::vector<std::string> bytes;
    bytes.reserve(items.size());
    for (const T& item : items) bytes.push_back(detail::to_bytes(item));
    detail::queue_put_many(ref(), bytes, "Queue::put_many");
  }
  /// Waits for an item; throws Closed once the queue is closed and empty.
  T get() { return decode(detail::queue_get(ref(), std::nullopt, "Queue::get").items[0]); }
  /// Like get(), but throws TimeoutError when no item comes in time.
  template <class Rep, class Period>
  T get(std::chrono::duration<Rep, Period> timeout) {
    return decode(detail::queue_get(ref(), detail::timeout_of(timeout), "Queue::get").items[0]);
  }
  T get(detail::Seconds auto seconds) { return get(detail::seconds_to_timeout(seconds, "Queue::get")); }
  /// Between 1 and n of the oldest items, in one round trip: waits only
  /// for the first. Throws Closed once the queue is closed and empty.
  std::vector<T> get_many(std::size_t n) {
    return decode_all(detail::queue_get_many(ref(), n, std::nullopt, "Queue::get_many"));
  }
  /// Like get_many(n), but throws TimeoutError when no item comes in time.
  template <class Rep, class Period>
  std::vector<T> get_many(std::size_t n, std::chrono::duration<Rep, Period> timeout) {
    return decode_all(
        detail::queue_get_many(ref(), n, detail::timeout_of(timeout), "Queue::get_many"));
  }
  std::vector<T> get_many(std::size_t n, detail::Seconds auto seconds) {
    return get_many(n, detail::seconds_to_timeout(seconds, "Queue::get_many"));
  }
  /// How many items it holds right now.
  std::size_t qsize() { return detail::queue_size(ref(), "Queue::qsize"); }
  /// Waits until this process's puts are in the queue; throws the error
  /// one met (Closed, or Error).
  void flush() { detail::queue_flush(ref(), "Queue::flush"); }
  /// True when it holds no item right now.
  bool empty() { return detail::queue_empty(ref(), "Queue::empty"); }
  /// No more puts, from any process; gets take what is left, then throw Closed.
  void close() { detail::queue_close(ref(), "Queue::close"); }

 private:
  static T decode(std::string_view bytes) {
    try {
      return detail::from_bytes<T>(bytes);
    } catch (const cereal::Exception& e) {
      throw Error(std::string("a queue item does not decode as the queue's type (") + e.what() + ")");
    }
  }
  static std::vector<T> decode_all(const detail::GotItems& all) {
    std::vector<T> items;
    items.reserve(all.items.size());
    for (std::string_view bytes : all.items) items.push_back(decode(bytes));
    return items;
  }
};

/// multiprocessing's SimpleQueue; here the same as Queue.
template <class T>
using SimpleQueue = Queue<T>;

}  // namespace fiber
