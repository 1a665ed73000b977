#include "os/process_usage.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstring>

namespace fiber::os {

bool ReadProcessUsage(ProcessUsage* usage) {
  // /proc/self/stat: "pid (comm) state ..."; comm may hold spaces and
  // parentheses, so fields are counted from the last ')'. utime and stime
  // are fields 14 and 15, in clock ticks.
  char buf[1024];
  FILE* f = std::fopen("/proc/self/stat", "re");
  if (!f) return false;
  const std::size_t n = std::fread(buf, 1, sizeof buf - 1, f);
  std::fclose(f);
  buf[n] = '\0';
  const char* rest = std::strrchr(buf, ')');
  unsigned long long utime = 0, stime = 0;
  if (!rest || std::sscanf(rest + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &utime,
                           &stime) != 2)
    return false;
  const long ticks = ::sysconf(_SC_CLK_TCK);
  usage->cpu_seconds = static_cast<double>(utime + stime) / static_cast<double>(ticks > 0 ? ticks : 100);
  f = std::fopen("/proc/self/statm", "re");
  if (!f) return false;
  unsigned long long size = 0, resident = 0;
  const int got = std::fscanf(f, "%llu %llu", &size, &resident);
  std::fclose(f);
  if (got != 2) return false;
  usage->rss_bytes = resident * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  return true;
}

void CpuMeter::Sample(Clock::time_point now) {
  ProcessUsage usage;
  if (!ReadProcessUsage(&usage)) return;
  samples_.emplace_back(now, usage.cpu_seconds);
  if (samples_.size() > kSamples) samples_.pop_front();
}

double CpuMeter::Percent(Clock::time_point now, const ProcessUsage& usage) const {
  if (samples_.empty()) return 0;
  const double span = std::chrono::duration<double>(now - samples_.front().first).count();
  return span > 0 ? 100 * (usage.cpu_seconds - samples_.front().second) / span : 0;
}

}  // namespace fiber::os
