// CPU counts, memory sizes and durations, written as users already write them for
// Docker and Kubernetes, and shown back in a form the parsers take.
// Each parser fails with *err as "'TEXT' is not ...", for its caller to
// name where the text came from.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace fiber::config {

/// A number of CPUs, possibly fractional ("2", "0.5") or in thousandths as
/// Kubernetes writes them ("500m"), to whole thousandths, at most 4096 CPUs.
[[nodiscard]] bool ParseCpu(const std::string& text, int* millis, std::string* err);
/// "2", "0.5", "0.001".
std::string FormatCpu(int millis);

/// A size in MiB, rounded up: Ki, Mi, Gi, Ti are powers of 1024 and M, G, T
/// powers of 1000, as Kubernetes reads them; k (or K), m, g, t are powers of
/// 1024 as Docker reads them (so "256m" is 256 MiB); a bare number is MiB.
/// Each may end in B ("512MiB", "2GB", "2gb"). At most 1024Ti.
[[nodiscard]] bool ParseMemory(const std::string& text, std::int64_t* mib, std::string* err);
/// "512Mi", "2Gi", "0".
std::string FormatMemory(std::int64_t mib);

/// A duration to the millisecond: seconds, as a bare number ("10", "0.5")
/// or with s, or with ms, m (minutes) or h ("500ms", "2m", "1h"). No range:
/// the caller checks its own. Shown back as seconds (FormatSeconds).
[[nodiscard]] bool ParseDuration(const std::string& text, std::chrono::milliseconds* out,
                                 std::string* err);

}  // namespace fiber::config
