#include "worker/scrub_environment.hpp"

#include <cstdlib>
#include <cstring>
#include <unistd.h>  // environ

namespace fiber::worker {

void ScrubEnvironment(const char* name) {
  const std::size_t name_size = std::strlen(name);
  for (char** entry = environ; entry && *entry; ++entry) {
    if (std::strncmp(*entry, name, name_size) != 0 || (*entry)[name_size] != '=') continue;
    char* value = *entry + name_size + 1;
    explicit_bzero(value, std::strlen(value));  // a plain memset of dead bytes may be dropped
  }
  ::unsetenv(name);
}

}  // namespace fiber::worker
