// The one wake descriptor: an eventfd a thread polls beside its sockets,
// which other threads write to make it look at what changed (posted work,
// a stop, a new timeout). Used by os::Inbox, a worker's master watch and
// the master's admission. Thread-safe: Wake from any thread, Clear from
// the thread that polls it.
#pragma once

#include <string>

#include "os/descriptor.hpp"

namespace fiber::os {

class WakeFd {
 public:
  /// False with *err when no eventfd can be made.
  [[nodiscard]] bool Open(std::string* err);
  /// What the owner polls for reading: readable from a Wake until Clear.
  int fd() const { return fd_.get(); }
  /// Makes fd() readable.
  void Wake();
  /// Makes fd() unreadable until the next Wake.
  void Clear();

 private:
  Descriptor fd_;
};

}  // namespace fiber::os
