// Helpers shared by the bench programs: the clock, summary statistics, the
// --quick switch and a tiny writer for the flat JSON objects they print.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

namespace bench {

using Clock = std::chrono::steady_clock;

inline double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

struct Stats {
  double mean = 0, median = 0, min = 0;
};

inline Stats summarize(std::vector<double> v) {
  Stats s;
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  s.mean = std::accumulate(v.begin(), v.end(), 0.0) / v.size();
  s.median = v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
  s.min = v.front();
  return s;
}

/// --quick on the command line or FIBER_BENCH_QUICK=1: counts divided by 10.
inline bool quick(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--quick") == 0) return true;
  const char* env = std::getenv("FIBER_BENCH_QUICK");
  return env && *env && std::strcmp(env, "0") != 0;
}

/// One JSON object; values are numbers, strings without quotes to escape,
/// or other objects.
class Json {
 public:
  Json& num(const std::string& key, double value) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.6g", value);
    return raw(key, buf);
  }
  Json& str(const std::string& key, const std::string& value) {
    return raw(key, "\"" + value + "\"");
  }
  Json& obj(const std::string& key, const Json& value) { return raw(key, value.text()); }
  std::string text() const { return "{" + body_ + "}"; }

 private:
  Json& raw(const std::string& key, const std::string& value) {
    if (!body_.empty()) body_ += ", ";
    body_ += "\"" + key + "\": " + value;
    return *this;
  }
  std::string body_;
};

}  // namespace bench
