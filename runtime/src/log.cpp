#include "log.hpp"

#include <atomic>
#include <cstdio>
#include <mutex>

namespace fiber::log {

namespace {
std::atomic<bool> verbose{false};
std::mutex prefix_mu;
std::string prefix = "fiber: ";
}  // namespace

void SetVerbose(bool on) { verbose = on; }

void SetWorker(const std::string& worker_id) {
  std::lock_guard<std::mutex> lock(prefix_mu);
  prefix = "fiber worker " + worker_id + ": ";
}

void Write(Level level, const std::string& message) {
  if (level == Level::kInfo && !verbose) return;
  const char* tag = level == Level::kError ? "error: " : level == Level::kWarning ? "warning: " : "";
  std::string line;
  {
    std::lock_guard<std::mutex> lock(prefix_mu);
    line = prefix;
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
