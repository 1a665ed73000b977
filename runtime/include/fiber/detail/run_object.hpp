// What every handle to a shared object of the run (a Queue, a Lock, a
// Semaphore, an Event) carries: the run and the object's id in its master,
// made in the master the first time a handle is used or sent, so that
// decoding a handle in another process makes no new object.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "fiber/detail/run_object_ref.hpp"

namespace fiber::detail {

/// One object of the run, made in the master when first needed; a decoded
/// handle's is made already. Thread-safe.
class LazyRunObject {
 public:
  explicit LazyRunObject(RunObjectSpec spec) : spec_(spec) {}
  explicit LazyRunObject(RunObjectRef ref) : ref_(std::move(ref)), made_(true) {}
  /// The object, made in the master on first call (api/run_object.cpp);
  /// once made, read without a lock.
  const RunObjectRef& ref() { return made_.load(std::memory_order_acquire) ? ref_ : Make(); }

 private:
  const RunObjectRef& Make();
  std::mutex mu_;  // held while making
  RunObjectSpec spec_;
  RunObjectRef ref_;  // not written again once made_
  std::atomic<bool> made_ = false;
};

/// What a handle type (Queue, Lock, Semaphore, Event) holds, and how it
/// travels: copies share one LazyRunObject.
class RunObjectHandle {
 public:
  template <class Archive>
  void save(Archive& ar) const {
    ar(object_->ref());
  }
  template <class Archive>
  void load(Archive& ar) {
    RunObjectRef ref;
    ar(ref);
    object_ = std::make_shared<LazyRunObject>(std::move(ref));
  }

 protected:
  explicit RunObjectHandle(RunObjectSpec spec) : object_(std::make_shared<LazyRunObject>(spec)) {}
  const RunObjectRef& ref() const { return object_->ref(); }

 private:
  std::shared_ptr<LazyRunObject> object_;
};

using Timeout = std::optional<std::chrono::milliseconds>;

template <class Rep, class Period>
Timeout timeout_of(std::chrono::duration<Rep, Period> d) {
  return std::chrono::ceil<std::chrono::milliseconds>(d);
}

}  // namespace fiber::detail
