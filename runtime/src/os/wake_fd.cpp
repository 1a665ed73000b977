#include "os/wake_fd.hpp"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cstdint>

namespace fiber::os {

bool WakeFd::Open(std::string* err) {
  fd_.Reset(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC));
  if (!fd_) *err = "cannot create an eventfd";
  return static_cast<bool>(fd_);
}

void WakeFd::Wake() {
  const std::uint64_t one = 1;
  if (::write(fd_.get(), &one, sizeof one) < 0) {
    // The counter can only saturate; the owner wakes all the same.
  }
}

void WakeFd::Clear() {
  std::uint64_t count;
  if (::read(fd_.get(), &count, sizeof count) < 0) {
    // EAGAIN: already clear.
  }
}

}  // namespace fiber::os
