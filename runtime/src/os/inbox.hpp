// Work other threads post to one thread that polls sockets: the items wait
// in a queue and a wake descriptor (os/wake_fd.hpp), which that thread
// polls beside its sockets, wakes it. The dispatcher's I/O thread takes its posted work from one
// (master/dispatcher.cpp), a worker's client thread its requests
// (client/remote_client.cpp). Thread-safe: Post and Close from any thread,
// Take from the owning thread.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "os/mutex.hpp"
#include "os/wake_fd.hpp"

namespace fiber::os {

template <typename T>
class Inbox {
 public:
  /// False with *err when no eventfd can be made.
  [[nodiscard]] bool Open(std::string* err) { return wake_.Open(err); }
  /// What the owner polls for reading.
  int fd() const { return wake_.fd(); }

  /// Queues item for the owner; false with *why (what Close was given) once
  /// closed, when the owner takes no more.
  [[nodiscard]] bool Post(T item, std::string* why = nullptr) {
    {
      MutexLock lock(mu_);
      if (closed_) {
        if (why) *why = *closed_;
        return false;
      }
      items_.push_back(std::move(item));
      // The owner clears the wake before it takes the items, so what is
      // queued behind others is taken with them: only the first needs one.
      if (items_.size() > 1) return true;
    }
    Wake();
    return true;
  }
  /// Refuses every post from now on, with why; the owner still takes what
  /// came before.
  void Close(std::string why) {
    MutexLock lock(mu_);
    if (!closed_) closed_ = std::move(why);
  }
  bool closed() const {
    MutexLock lock(mu_);
    return closed_.has_value();
  }
  /// Wakes the owner with nothing new (to see that it is closed).
  void Wake() { wake_.Wake(); }

  /// The owner: everything posted so far, in order, the wake cleared.
  std::vector<T> Take() {
    wake_.Clear();
    std::vector<T> taken;
    MutexLock lock(mu_);
    taken.swap(items_);
    return taken;
  }

 private:
  WakeFd wake_;
  mutable Mutex mu_;
  std::vector<T> items_ FIBER_GUARDED_BY(mu_);
  std::optional<std::string> closed_ FIBER_GUARDED_BY(mu_);  // why posts are refused
};

}  // namespace fiber::os
