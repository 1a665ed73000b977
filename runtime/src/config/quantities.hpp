// CPU counts and memory sizes, written as users already write them for
// Docker and Kubernetes, and shown back in a form the parsers take.
// Each parser fails with *err as "'TEXT' is not ...", for its caller to
// name where the text came from.
#pragma once

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
/// At most 1024Ti.
[[nodiscard]] bool ParseMemory(const std::string& text, std::int64_t* mib, std::string* err);
/// "512Mi", "2Gi", "0".
std::string FormatMemory(std::int64_t mib);

}  // namespace fiber::config
