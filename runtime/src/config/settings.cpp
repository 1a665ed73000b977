#include "config/settings.hpp"

#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "config/assignment.hpp"
#include "config/setting_table.hpp"
#include "os/mutex.hpp"

namespace fiber::config {

namespace {

os::Mutex current_mu;
Settings current FIBER_GUARDED_BY(current_mu);

}  // namespace

const char* ProcessEnvironment(const char* name) { return std::getenv(name); }

bool IsVariableName(std::string_view name) {
  if (name.empty() || (name.front() >= '0' && name.front() <= '9')) return false;
  for (char c : name)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'))
      return false;
  return true;
}

std::map<std::string, std::string> WorkerEnvironment(const Settings& settings, const Getenv& getenv) {
  std::map<std::string, std::string> env;
  std::string_view names = settings.worker_env;
  while (!names.empty()) {
    const auto comma = names.find(',');
    const std::string name(names.substr(0, comma));
    names = comma == std::string_view::npos ? std::string_view() : names.substr(comma + 1);
    if (const char* value = getenv(name.c_str())) env[name] = value;
  }
  return env;
}

std::string AdvertisedHost(const Settings& settings) {
  return settings.advertise_host.empty() ? settings.listen_host : settings.advertise_host;
}

std::string FormatSeconds(std::chrono::milliseconds ms) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", static_cast<double>(ms.count()) / 1000.0);
  std::string s = buf;
  s.erase(s.find_last_not_of('0') + 1);
  if (s.back() == '.') s.pop_back();
  return s;
}

bool ApplyTiming(const Getenv& getenv, std::chrono::milliseconds* interval,
                 std::chrono::milliseconds* timeout, std::chrono::milliseconds* start_timeout,
                 std::string* err) {
  Settings s;
  s.heartbeat_interval = *interval;
  s.heartbeat_timeout = *timeout;
  s.start_timeout = *start_timeout;
  Sources sources;
  for (const Assignment& a : FromEnvironment(getenv)) {
    const std::string_view v = a.setting->variable;
    if (v != kHeartbeatInterval && v != kHeartbeatTimeout && v != kStartTimeout) continue;
    if (!Apply(a, &s, err)) return false;
    sources[a.setting->key] = a.source;
  }
  if (!CheckTogether(s, sources, err)) return false;
  *interval = s.heartbeat_interval;
  *timeout = s.heartbeat_timeout;
  *start_timeout = s.start_timeout;
  return true;
}

Settings Current() {
  os::MutexLock lock(current_mu);
  return current;
}

void SetCurrent(const Settings& settings) {
  os::MutexLock lock(current_mu);
  current = settings;
}

}  // namespace fiber::config
