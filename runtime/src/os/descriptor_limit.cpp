#include "os/descriptor_limit.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <fstream>

namespace fiber::os {

void RaiseDescriptorLimit() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur >= limit.rlim_max) return;
  limit.rlim_cur = limit.rlim_max;
  // Fails only for a hard limit above the kernel's nr_open; the old one then serves.
  (void)::setrlimit(RLIMIT_NOFILE, &limit);
}

std::size_t DescriptorLimit() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) return 1024;  // glibc's default soft limit
  return static_cast<std::size_t>(std::min<rlim_t>(limit.rlim_cur, rlim_t{1} << 30));
}

std::size_t MappingLimit() {
  std::size_t limit = 0;
  std::ifstream in("/proc/sys/vm/max_map_count");
  if (in >> limit && limit > 0) return limit;
  return 65530;  // the kernel's default
}

}  // namespace fiber::os
