// A run in full (run_view.hpp's DescribeInFull) as lines of text: its
// master, its pools and its workers, the same for fiber top's screen, its
// --once and fiber ps RUN. Thread-safe (no state).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace fiber::cli {

/// The orders fiber top's `s` cycles through, in that order.
enum class WorkerOrder { kState, kId, kTaskTime, kDone };
inline constexpr int kWorkerOrders = 4;
/// "state", "id", "task time", "done".
const char* to_string(WorkerOrder order);

/// "1h 02m 03s", "4m 05s", "6s".
std::string Elapsed(long long seconds);

/// "RUN a1b2c3 squares (local) running 1m 02s  master pid 4567 on node1: cpu 0.4%, 31.2 MiB".
std::string RunLine(const nlohmann::json& run);
/// The run's pools, a heading and one line each; none when there are none.
std::vector<std::string> PoolLines(const nlohmann::json& run);
/// The run's workers, a heading and one line each in order, at most most of
/// them and then "(and N more)"; the note, when there is one, first.
std::vector<std::string> WorkerLines(const nlohmann::json& run, WorkerOrder order, std::size_t most);

}  // namespace fiber::cli
