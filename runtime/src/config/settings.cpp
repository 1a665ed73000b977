#include "config/settings.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <mutex>

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

}  // namespace

std::string FormatSeconds(std::chrono::milliseconds ms) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", static_cast<double>(ms.count()) / 1000.0);
  return buf;
}

bool ApplyHeartbeat(const Getenv& getenv, std::chrono::milliseconds* interval,
                    std::chrono::milliseconds* timeout, std::string* err) {
  if (const char* v = getenv("FIBER_HEARTBEAT_INTERVAL"))
    if (!ParseSeconds("FIBER_HEARTBEAT_INTERVAL", v, 0.01, interval, err)) return false;
  if (const char* v = getenv("FIBER_HEARTBEAT_TIMEOUT"))
    if (!ParseSeconds("FIBER_HEARTBEAT_TIMEOUT", v, 0.1, timeout, err)) return false;
  if (*timeout <= 2 * *interval) {
    *err = "FIBER_HEARTBEAT_TIMEOUT must be more than twice FIBER_HEARTBEAT_INTERVAL";
    return false;
  }
  return true;
}

namespace {

std::mutex current_mu;
Settings current;

}  // namespace

bool ApplyEnvironment(const Getenv& getenv, Settings* s, std::string* err) {
  if (const char* v = getenv("FIBER_BACKEND")) {
    if (std::string(v) != "local") {
      *err = std::string("FIBER_BACKEND='") + v + "' is not a known backend (known: local)";
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
  if (!ApplyHeartbeat(getenv, &s->heartbeat_interval, &s->heartbeat_timeout, err)) return false;
  if (const char* v = getenv("FIBER_START_TIMEOUT"))
    if (!ParseSeconds("FIBER_START_TIMEOUT", v, 0.1, &s->start_timeout, err)) return false;
  if (const char* v = getenv("FIBER_PREFETCH")) {
    char* end = nullptr;
    const long n = std::strtol(v, &end, 10);
    if (end == v || *end != '\0' || n < 1 || n > 1024) {
      *err = std::string("FIBER_PREFETCH='") + v + "' is not a whole number from 1 to 1024";
      return false;
    }
    s->prefetch = static_cast<int>(n);
  }
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
