#include "runs/log_stamps.hpp"

#include <time.h>

#include <algorithm>
#include <cstdio>
#include <fstream>

#include "os/descriptor.hpp"
#include "runs/run_dir.hpp"

namespace fiber::runs {

std::string StampsPath(const std::string& log_path) {
  const std::string ext = ".log";
  const bool log = log_path.size() > ext.size() && log_path.compare(log_path.size() - ext.size(), ext.size(), ext) == 0;
  return (log ? log_path.substr(0, log_path.size() - ext.size()) : log_path) + ".times";
}

void AppendStamp(const std::string& path, const LogStamp& stamp) {
  const os::Descriptor fd(OpenToAppend(path));
  if (!fd) return;
  const long long ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(stamp.at.time_since_epoch()).count();
  os::WriteAll(fd.get(), std::to_string(stamp.end) + " " + std::to_string(ns) + "\n");
}

bool ParseStamp(const char* line, const LogStamp* last, LogStamp* stamp) {
  long long end = 0, ns = 0;
  if (std::sscanf(line, "%lld %lld", &end, &ns) != 2 || end < 0) return false;
  stamp->end = end;
  stamp->at = WallClock::time_point(std::chrono::duration_cast<WallClock::duration>(std::chrono::nanoseconds(ns)));
  // Kept ordered whatever the file says: a reader never goes back.
  return !last || (end >= last->end && stamp->at >= last->at);
}

std::vector<LogStamp> ReadStamps(const std::string& path) {
  std::vector<LogStamp> stamps;
  std::ifstream in(path);
  LogStamp stamp;
  for (std::string line; std::getline(in, line);)
    if (ParseStamp(line.c_str(), stamps.empty() ? nullptr : &stamps.back(), &stamp)) stamps.push_back(stamp);
  return stamps;
}

WallClock::time_point StampOf(const std::vector<LogStamp>& stamps, long long end, WallClock::time_point fallback) {
  const auto it = std::lower_bound(stamps.begin(), stamps.end(), end,
                                   [](const LogStamp& s, long long offset) { return s.end < offset; });
  return it == stamps.end() ? fallback : it->at;
}

bool ParseRfc3339(std::string_view text, WallClock::time_point* at) {
  // "YYYY-MM-DDTHH:MM:SS", then ".digits" (up to 9), then "Z".
  if (text.size() < 20 || text.size() > 30 || text.back() != 'Z') return false;
  const std::string whole(text.substr(0, 19));
  tm utc{};
  const char* rest = ::strptime(whole.c_str(), "%Y-%m-%dT%H:%M:%S", &utc);
  if (!rest || *rest != '\0') return false;
  std::string_view fraction = text.substr(19, text.size() - 20);
  long long ns = 0;
  if (!fraction.empty()) {
    if (fraction[0] != '.' || fraction.size() < 2 || fraction.size() > 10) return false;
    fraction.remove_prefix(1);
    for (std::size_t i = 0; i < 9; ++i) {
      const char c = i < fraction.size() ? fraction[i] : '0';
      if (c < '0' || c > '9') return false;
      ns = ns * 10 + (c - '0');
    }
  }
  *at = WallClock::time_point(std::chrono::duration_cast<WallClock::duration>(
      std::chrono::seconds(::timegm(&utc)) + std::chrono::nanoseconds(ns)));
  return true;
}

bool TakeTime(std::string_view* line, WallClock::time_point* at) {
  const std::size_t space = line->find(' ');
  if (space == std::string_view::npos || !ParseRfc3339(line->substr(0, space), at)) return false;
  line->remove_prefix(space + 1);
  return true;
}

std::string Rfc3339(WallClock::time_point at) {
  const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(at.time_since_epoch()).count();
  const time_t seconds = static_cast<time_t>(ns / 1000000000);
  tm utc{};
  ::gmtime_r(&seconds, &utc);
  char text[64];
  const std::size_t n = std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &utc);
  std::snprintf(text + n, sizeof text - n, ".%09lldZ", static_cast<long long>(ns % 1000000000));
  return text;
}

}  // namespace fiber::runs
