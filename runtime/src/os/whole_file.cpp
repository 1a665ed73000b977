#include "os/whole_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "os/descriptor.hpp"

namespace fiber::os {

bool ReadWhole(int fd, std::string* text, std::string* reason) {
  text->clear();
  char buf[8192];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      text->append(buf, static_cast<std::size_t>(n));
    } else if (n == 0) {
      return true;
    } else if (errno != EINTR) {
      *reason = std::strerror(errno);
      return false;
    }
  }
}

bool ReadWholeFile(const std::string& path, std::string* text, std::string* reason) {
  const Descriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) {
    *reason = std::strerror(errno);
    return false;
  }
  return ReadWhole(fd.get(), text, reason);
}

}  // namespace fiber::os
