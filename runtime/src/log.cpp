#include "log.hpp"

#include <atomic>
#include <cstdio>

namespace fiber::log {

namespace {
std::atomic<bool> verbose{false};
}

void SetVerbose(bool on) { verbose = on; }

void Write(Level level, const std::string& message) {
  if (level == Level::kInfo && !verbose) return;
  const char* tag = level == Level::kError ? "error: " : level == Level::kWarning ? "warning: " : "";
  // One fprintf call per line keeps lines from different threads whole.
  std::fprintf(stderr, "fiber: %s%s\n", tag, message.c_str());
}

}  // namespace fiber::log
