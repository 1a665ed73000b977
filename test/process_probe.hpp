// Whether a process still exists, for tests that check nothing is left
// running. A zombie counts as gone: it runs nothing.
#pragma once

#include <fstream>
#include <string>

inline bool process_alive(long pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return false;
  const auto close = line.rfind(')');
  return close != std::string::npos && close + 2 < line.size() && line[close + 2] != 'Z';
}
