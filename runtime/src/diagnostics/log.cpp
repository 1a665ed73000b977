#include "diagnostics/log.hpp"

#include <algorithm>
#include <atomic>
#include <deque>
#include <cstdio>

#include "os/mutex.hpp"

namespace fiber::log {

namespace {
std::atomic<bool> verbose{false};
os::Mutex prefix_mu;
std::string prefix = "fiber: ";
std::deque<std::string> errors_said FIBER_GUARDED_BY(prefix_mu);
}  // namespace

bool SaidError(const std::string& message) {
  os::MutexLock lock(prefix_mu);
  return std::find(errors_said.begin(), errors_said.end(), message) != errors_said.end();
}

void SetVerbose(bool on) { verbose = on; }

void SetWorker(const std::string& worker_id) {
  os::MutexLock lock(prefix_mu);
  prefix = "fiber worker " + worker_id + ": ";
}

void Write(Level level, const std::string& message) {
  if (level == Level::kInfo && !verbose) return;
  const char* tag = level == Level::kError ? "error: " : level == Level::kWarning ? "warning: " : "";
  std::string line;
  {
    os::MutexLock lock(prefix_mu);
    line = prefix;
    if (level == Level::kError) {
      errors_said.push_back(message);
      if (errors_said.size() > 16) errors_said.pop_front();
    }
  }
  line += tag;
  line += message;
  line += '\n';
  // One write per line keeps lines from different threads whole.
  std::fputs(line.c_str(), stderr);
  std::fflush(stderr);
}

std::string Seconds(std::chrono::duration<double> d) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f s", d.count());
  return buf;
}

}  // namespace fiber::log
