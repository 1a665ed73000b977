// Work other threads post to one thread that polls sockets: the items wait
// in a queue and an eventfd, which that thread polls beside its sockets,
// wakes it. The dispatcher's I/O thread takes its posted work from one
// (master/dispatcher.cpp), a worker's client thread its requests
// (client/run_client.cpp). Thread-safe: Post and Close from any thread,
// Take from the owning thread.
#pragma once

#include <sys/eventfd.h>
#include <unistd.h>

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "os/descriptor.hpp"

namespace fiber::os {

template <typename T>
class Inbox {
 public:
  /// False with *err when no eventfd can be made.
  [[nodiscard]] bool Open(std::string* err) {
    wake_.Reset(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC));
    if (!wake_) *err = "cannot create an eventfd";
    return static_cast<bool>(wake_);
  }
  /// What the owner polls for reading.
  int fd() const { return wake_.get(); }

  /// Queues item for the owner; false with *why (what Close was given) once
  /// closed, when the owner takes no more.
  [[nodiscard]] bool Post(T item, std::string* why = nullptr) {
    {
      std::lock_guard<std::mutex> lock(mu_);
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
    std::lock_guard<std::mutex> lock(mu_);
    if (!closed_) closed_ = std::move(why);
  }
  bool closed() const {
    std::lock_guard<std::mutex> lock(mu_);
    return closed_.has_value();
  }
  /// Wakes the owner with nothing new (to see that it is closed).
  void Wake() {
    const std::uint64_t one = 1;
    if (::write(wake_.get(), &one, sizeof one) < 0) {
      // The counter can only saturate; the owner wakes all the same.
    }
  }

  /// The owner: everything posted so far, in order, the wake cleared.
  std::vector<T> Take() {
    std::uint64_t count;
    if (::read(wake_.get(), &count, sizeof count) < 0) {
      // EAGAIN: an earlier Take cleared the wake.
    }
    std::vector<T> taken;
    std::lock_guard<std::mutex> lock(mu_);
    taken.swap(items_);
    return taken;
  }

 private:
  Descriptor wake_;
  mutable std::mutex mu_;
  std::vector<T> items_;
  std::optional<std::string> closed_;  // why posts are refused
};

}  // namespace fiber::os
