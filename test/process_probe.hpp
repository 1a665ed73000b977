// What tests and benchmarks read about processes from /proc: whether one
// still exists (nothing left running), when it started, and this one's
// resident memory.
#pragma once

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

/// Whether process pid still exists. A zombie counts as gone: it runs nothing.
inline bool process_alive(long pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return false;
  const auto close = line.rfind(')');
  return close != std::string::npos && close + 2 < line.size() && line[close + 2] != 'Z';
}

/// When process pid started (field 22 of /proc/PID/stat, as fiber records
/// it against pid reuse), or 0.
inline unsigned long long process_start(long pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line) || line.rfind(')') == std::string::npos) return 0;
  std::istringstream rest(line.substr(line.rfind(')') + 2));
  std::string field;
  for (int i = 3; i <= 22; ++i) rest >> field;
  return std::strtoull(field.c_str(), nullptr, 10);
}

/// This process's resident memory in KiB (VmRSS), or -1.
inline long resident_kb() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  return -1;
}
