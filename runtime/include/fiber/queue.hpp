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
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "fiber/errors.hpp"
#include "fiber/serialize.hpp"

namespace fiber::detail {

/// Which queue of which run: what a Queue handle carries to other processes.
struct QueueRef {
  std::string run_id;
  std::uint64_t id = 0;
  template <class Archive>
  void serialize(Archive& ar) {
    ar(run_id, id);
  }
};

/// A queue made in the master the first time a handle is used or sent, so
/// that decoding a handle in another process makes no queue.
class LazyQueue {
 public:
  LazyQueue() = default;
  explicit LazyQueue(QueueRef ref) : ref_(std::move(ref)), made_(true) {}
  const QueueRef& ref();

 private:
  std::mutex mu_;
  QueueRef ref_;
  bool made_ = false;
};

using Timeout = std::optional<std::chrono::milliseconds>;

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
class Queue {
 public:
  /// A new, empty queue of the run.
  Queue() : queue_(std::make_shared<detail::LazyQueue>()) {}

  void put(const T& item) { detail::queue_put(queue_->ref(), detail::to_bytes(item), "Queue::put"); }
  /// Waits for an item; throws Closed once the queue is closed and empty.
  T get() { return decode(detail::queue_get(queue_->ref(), std::nullopt, "Queue::get")); }
  /// Like get(), but throws TimeoutError when no item comes in time.
  template <class Rep, class Period>
  T get(std::chrono::duration<Rep, Period> timeout) {
    return decode(detail::queue_get(
        queue_->ref(), std::chrono::ceil<std::chrono::milliseconds>(timeout), "Queue::get"));
  }
  /// True when it holds no item right now.
  bool empty() { return detail::queue_empty(queue_->ref(), "Queue::empty"); }
  /// No more puts, from any process; gets take what is left, then throw Closed.
  void close() { detail::queue_close(queue_->ref(), "Queue::close"); }

  template <class Archive>
  void save(Archive& ar) const {
    ar(queue_->ref());
  }
  template <class Archive>
  void load(Archive& ar) {
    detail::QueueRef ref;
    ar(ref);
    queue_ = std::make_shared<detail::LazyQueue>(std::move(ref));
  }

 private:
  static T decode(const std::string& bytes) {
    try {
      return detail::from_bytes<T>(bytes);
    } catch (const cereal::Exception& e) {
      throw Error(std::string("a queue item does not decode as the queue's type (") + e.what() + ")");
    }
  }
  std::shared_ptr<detail::LazyQueue> queue_;
};

/// multiprocessing's SimpleQueue; here the same as Queue.
template <class T>
using SimpleQueue = Queue<T>;

}  // namespace fiber
