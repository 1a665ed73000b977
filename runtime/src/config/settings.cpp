#include "config/settings.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <mutex>

#include "backend/backend.hpp"
#include "wire/limits.hpp"

namespace fiber::config {

namespace {

bool ParseSeconds(const char* name, const char* text, double min_seconds,
                  std::chrono::milliseconds* out, std::string* err) {
  char* end = nullptr;
  errno = 0;
  const double seconds = std::strtod(text, &end);
  if (end == text || *end != '\0' || errno != 0 || !std::isfinite(seconds) ||
      seconds < min_seconds || seconds > 86400) {
    *err = std::string(name) + "='" + text + "' is not a number of seconds between " +
           std::to_string(min_seconds).substr(0, 5) + " and 86400";
    return false;
  }
  *out = std::chrono::milliseconds(static_cast<long long>(seconds * 1000));
  return true;
}

bool ParseWhole(const char* name, const char* text, long lo, long hi, int* out,
                std::string* err) {
  char* end = nullptr;
  errno = 0;
  const long n = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || errno != 0 || n < lo || n > hi) {
    *err = std::string(name) + "='" + text + "' is not a whole number from " +
           std::to_string(lo) + " to " + std::to_string(hi);
    return false;
  }
  *out = static_cast<int>(n);
  return true;
}

std::mutex current_mu;
Settings current;

}  // namespace

std::string FormatSeconds(std::chrono::milliseconds ms) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", static_cast<double>(ms.count()) / 1000.0);
  return buf;
}

bool ApplyTiming(const Getenv& getenv, std::chrono::milliseconds* interval,
                 std::chrono::milliseconds* timeout, std::chrono::milliseconds* start_timeout,
                 std::string* err) {
  if (const char* v = getenv(kHeartbeatInterval))
    if (!ParseSeconds(kHeartbeatInterval, v, 0.01, interval, err)) return false;
  if (const char* v = getenv(kHeartbeatTimeout))
    if (!ParseSeconds(kHeartbeatTimeout, v, 0.1, timeout, err)) return false;
  if (const char* v = getenv(kStartTimeout))
    if (!ParseSeconds(kStartTimeout, v, 0.1, start_timeout, err)) return false;
  if (*timeout <= 2 * *interval) {
    *err = std::string(kHeartbeatTimeout) + " must be more than twice " + kHeartbeatInterval;
    return false;
  }
  return true;
}

bool ApplyEnvironment(const Getenv& getenv, Settings* s, std::string* err) {
  if (const char* v = getenv("FIBER_BACKEND")) {
    if (!backend::CheckName(v, err)) {
      *err = "FIBER_BACKEND=" + *err;
      return false;
    }
    s->backend = v;
  }
  if (const char* v = getenv("FIBER_LISTEN_HOST")) {
    if (!*v) {
      *err = "FIBER_LISTEN_HOST is empty";
      return false;
    }
    s->listen_host = v;
  }
  if (const char* v = getenv("FIBER_LISTEN_PORT"))
    if (!ParseWhole("FIBER_LISTEN_PORT", v, 0, 65535, &s->listen_port, err)) return false;
  if (!ApplyTiming(getenv, &s->heartbeat_interval, &s->heartbeat_timeout, &s->start_timeout, err))
    return false;
  if (const char* v = getenv("FIBER_PREFETCH"))
    if (!ParseWhole("FIBER_PREFETCH", v, 1, wire::kMaxCredit, &s->prefetch, err)) return false;
  if (const char* v = getenv("FIBER_LOG")) {
    const std::string level = v;
    if (level != "info" && level != "warning") {
      *err = "FIBER_LOG='" + level + "' is not a log level (info or warning)";
      return false;
    }
    s->verbose = level == "info";
  }
  return true;
}

Settings Current() {
  std::lock_guard<std::mutex> lock(current_mu);
  return current;
}

void SetCurrent(const Settings& settings) {
  std::lock_guard<std::mutex> lock(current_mu);
  current = settings;
}

}  // namespace fiber::config
