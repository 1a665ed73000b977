#include "os/whole_file.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

namespace fiber::os {

bool ReadWholeFile(const std::string& path, std::string* text, std::string* reason) {
  std::unique_ptr<FILE, int (*)(FILE*)> file(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!file) {
    *reason = std::strerror(errno);
    return false;
  }
  text->clear();
  char buf[8192];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, file.get())) > 0) text->append(buf, n);
  if (std::ferror(file.get())) {
    *reason = std::strerror(errno);
    return false;
  }
  return true;
}

}  // namespace fiber::os
