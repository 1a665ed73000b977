// A worker's id within its run: "w" and a number, w0, w1, ... as the master
// gives them out; a backend that starts many workers with one command
// (Slurm's job arrays) has each worker make its own from the number. The
// one place the form is spelled and read. Pure: thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace fiber::worker {

/// What every worker id starts with, before its number.
inline constexpr std::string_view kWorkerIdPrefix = "w";

/// The id of worker number n: "w" + n.
inline std::string WorkerId(std::uint64_t n) {
  std::string id(kWorkerIdPrefix);  // not prefix + ...: GCC 12's false -Wrestrict at -O3
  return id += std::to_string(n);
}

/// The number n of worker id "wN" (N at most 11 digits); false for any other id.
inline bool WorkerNumber(std::string_view id, long* n) {
  if (id.size() <= kWorkerIdPrefix.size() || id.size() > kWorkerIdPrefix.size() + 11 ||
      id.substr(0, kWorkerIdPrefix.size()) != kWorkerIdPrefix)
    return false;
  long value = 0;
  for (char c : id.substr(kWorkerIdPrefix.size())) {
    if (c < '0' || c > '9') return false;
    value = value * 10 + (c - '0');
  }
  *n = value;
  return true;
}

}  // namespace fiber::worker
