// One line per event on stderr, prefixed "fiber: ". Warnings and errors
// always show; info only when the settings ask for it (FIBER_LOG=info).
#pragma once

#include <string>

namespace fiber::log {

enum class Level { kInfo, kWarning, kError };

void SetVerbose(bool verbose);
void Write(Level level, const std::string& message);
inline void Info(const std::string& message) { Write(Level::kInfo, message); }
inline void Warning(const std::string& message) { Write(Level::kWarning, message); }
inline void Error(const std::string& message) { Write(Level::kError, message); }

}  // namespace fiber::log
