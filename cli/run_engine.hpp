// The container engine holding a run's containers, for fiber run (which
// removes them when the master ends, however it ended), ps, logs and stop:
// the engine the run's recorded settings name, reached as the backend
// reaches it (engine/engine_socket.hpp).
#pragma once

#include <string>

#include "engine/engine_client.hpp"
#include "run_store.hpp"

namespace fiber::cli {

/// True when the run's backend puts its workers in containers.
bool RunsInContainers(const RunRecord& run);

/// Connects to the run's engine; false with *err when it has none or the
/// engine does not answer.
[[nodiscard]] bool ConnectRunEngine(const RunRecord& run, engine::Client* out, std::string* err);

}  // namespace fiber::cli
