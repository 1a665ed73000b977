// Asks a running master for its status over the run's control socket
// (runtime/src/master/control.hpp answers).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace fiber::cli {

/// The master's status as JSON; false with *err when it does not answer
/// within a second (not running, or busy).
[[nodiscard]] bool QueryStatus(const std::string& run_dir, nlohmann::json* status, std::string* err);

}  // namespace fiber::cli
