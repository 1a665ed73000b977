// What this process uses of the machine, from /proc/self: CPU time and
// resident memory, and its CPU share over the last few seconds. For the
// master's own line in fiber top. Not thread-safe (a CpuMeter is its
// sampler's).
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>

namespace fiber::os {

struct ProcessUsage {
  double cpu_seconds = 0;  // user and system, all threads
  std::uint64_t rss_bytes = 0;
};

/// This process's usage now; false when /proc cannot be read.
[[nodiscard]] bool ReadProcessUsage(ProcessUsage* usage);

/// This process's CPU share (100 = one core) over the last few samples.
class CpuMeter {
 public:
  using Clock = std::chrono::steady_clock;
  /// Takes a sample; call about once a second.
  void Sample(Clock::time_point now);
  /// Percent of one core between the oldest sample kept and now's usage.
  double Percent(Clock::time_point now, const ProcessUsage& usage) const;

 private:
  static constexpr std::size_t kSamples = 5;
  std::deque<std::pair<Clock::time_point, double>> samples_;  // at, cpu seconds
};

}  // namespace fiber::os
