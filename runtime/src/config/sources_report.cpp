#include "config/sources_report.hpp"

#include <algorithm>

namespace fiber::config {

std::string SourcesReport(const Resolved& resolved) {
  std::size_t key_width = 0;
  std::size_t value_width = 0;
  for (const Setting& s : Table()) {
    key_width = std::max(key_width, std::string(s.key).size());
    value_width = std::max(value_width, s.kind.show(resolved.settings).size());
  }
  std::string report;
  for (const Setting& s : Table()) {
    std::string line = s.key;
    line.resize(key_width + 2, ' ');
    line += s.kind.show(resolved.settings);
    line.resize(key_width + 2 + value_width + 2, ' ');
    const auto source = resolved.sources.find(s.key);
    report += line + (source == resolved.sources.end() ? "default" : source->second) + "\n";
  }
  return report;
}

std::string ShownAtRunSources(const Resolved& resolved) {
  std::string shown;
  for (const Setting& s : Table()) {
    const auto source = resolved.sources.find(s.key);
    if (!s.shown_at_run || source == resolved.sources.end() || source->second == "default") continue;
    shown += (shown.empty() ? "" : ", ") + std::string(s.key) + " from " + source->second;
  }
  return shown;
}

}  // namespace fiber::config
