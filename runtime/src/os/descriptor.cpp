#include "os/descriptor.hpp"

#include <unistd.h>

#include <cerrno>

namespace fiber::os {

void Descriptor::Reset(int fd) {
  if (fd_ >= 0) ::close(fd_);
  fd_ = fd;
}

bool Descriptor::Close() {
  // Not retried on EINTR: Linux has released the descriptor either way.
  return ::close(Release()) == 0;
}

bool WriteAll(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

}  // namespace fiber::os
