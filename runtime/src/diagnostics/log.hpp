// One line per event on stderr, for master and workers alike: "fiber: ..."
// in the master, "fiber worker w3: ..." in a worker. Warnings and errors
// always show; info only when the settings ask for it (FIBER_LOG=info).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace fiber::log {

enum class Level { kInfo, kWarning, kError };

void SetVerbose(bool verbose);
/// Marks this process's lines as those of a worker ("fiber worker ID: ").
void SetWorker(const std::string& worker_id);
void Write(Level level, const std::string& message);
inline void Info(const std::string& message) { Write(Level::kInfo, message); }
inline void Warning(const std::string& message) { Write(Level::kWarning, message); }
inline void Error(const std::string& message) { Write(Level::kError, message); }
/// True when Error said message lately (of the last 16): an exception
/// carrying it that ends the program need not say it again.
bool SaidError(const std::string& message);

/// A duration as people read it in a log line: "1.5 s".
std::string Seconds(std::chrono::duration<double> d);

/// Lets the first few of a kind of event through, then one in a thousand,
/// so a flood cannot fill the log. Not thread-safe.
class RateLimit {
 public:
  /// Counts one event; true when it should be logged.
  [[nodiscard]] bool Allow() { return ++count_ <= 10 || count_ % 1000 == 0; }
  std::uint64_t count() const { return count_; }

 private:
  std::uint64_t count_ = 0;
};

}  // namespace fiber::log
