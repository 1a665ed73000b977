// The labels fiber puts on every container it starts, and by which it finds
// them again: the engine's records, not fiber's memory, say which containers
// a run has (fiber ps, logs and stop read them after a crash too). The one
// place that names them.
#pragma once

#include <string>

namespace fiber::backend {

inline constexpr const char* kRunLabel = "fiber.run";        // the run's id
inline constexpr const char* kRoleLabel = "fiber.role";      // "worker"
inline constexpr const char* kWorkerLabel = "fiber.worker";  // the worker's id

/// A label filter for the engine's list: "fiber.run=ID".
inline std::string LabelIs(const char* key, const std::string& value) {
  return std::string(key) + "=" + value;
}

}  // namespace fiber::backend
