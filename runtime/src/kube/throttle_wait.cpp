#include "kube/throttle_wait.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

namespace fiber::kube {

namespace {

// An IMF-fixdate, the one form of HTTP date senders must use; read by hand,
// not by strptime, whose day and month names follow the program's locale.
bool ParseHttpDate(const std::string& text, std::chrono::system_clock::time_point* at) {
  static constexpr std::array<const char*, 12> kMonths = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                          "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  char weekday[4] = {}, month[4] = {}, zone[4] = {};
  std::tm tm{};
  int consumed = 0;
  if (std::sscanf(text.c_str(), "%3[A-Za-z], %2d %3[A-Za-z] %4d %2d:%2d:%2d %3[A-Z]%n", weekday, &tm.tm_mday,
                  month, &tm.tm_year, &tm.tm_hour, &tm.tm_min, &tm.tm_sec, zone, &consumed) != 8 ||
      static_cast<std::size_t>(consumed) != text.size() || std::strcmp(zone, "GMT") != 0)
    return false;
  const auto m = std::find_if(kMonths.begin(), kMonths.end(), [&](const char* name) { return std::strcmp(name, month) == 0; });
  if (m == kMonths.end() || tm.tm_mday < 1 || tm.tm_mday > 31 || tm.tm_hour > 23 || tm.tm_min > 59 ||
      tm.tm_sec > 60)
    return false;
  tm.tm_mon = static_cast<int>(m - kMonths.begin());
  tm.tm_year -= 1900;
  const std::time_t utc = timegm(&tm);
  if (utc == static_cast<std::time_t>(-1)) return false;
  *at = std::chrono::system_clock::from_time_t(utc);
  return true;
}

}  // namespace

std::chrono::milliseconds ThrottleWait(const std::string& retry_after, int retry,
                                       std::chrono::system_clock::time_point now) {
  using std::chrono::milliseconds;
  char* end = nullptr;
  const long seconds = std::strtol(retry_after.c_str(), &end, 10);
  if (!retry_after.empty() && *end == '\0' && seconds >= 0)
    return std::min<milliseconds>(std::chrono::seconds(std::min(seconds, 3600L)), kMaxThrottleWait);
  if (std::chrono::system_clock::time_point at; ParseHttpDate(retry_after, &at))
    return std::clamp<milliseconds>(std::chrono::ceil<milliseconds>(at - now), milliseconds(0), kMaxThrottleWait);
  return std::min<milliseconds>(kFirstBackoff * (1L << std::min(retry, 16)), kMaxThrottleWait);
}

}  // namespace fiber::kube
