// The protocol of a run's control socket, both ends' one reference: the
// master answers on it (master/control.*), fiber ps and fiber run's
// supervisor, fiber top and ps ask (cli/control_client.*). A ZeroMQ REQ/REP
// pair over a Unix socket in the run's directory (runs::ControlSocketPath);
// each request is one of the words below, each answer one JSON object.
// Constants only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "runs/run_dir.hpp"

namespace fiber::runs {

/// Where the master binds and a client connects, for the run in run_dir.
inline std::string ControlEndpoint(const std::string& run_dir) {
  return "ipc://" + ControlSocketPath(run_dir);
}

/// The master's numbers (workers wanted and ready, tasks queued, running,
/// done and failed), as `fiber ps` shows them and fiber run's supervisor
/// reads them:
///   {"pid": 123, "pools": 1, "manager_calls_via_master": 0,
///    "workers_started": 4, "workers_wanted": 4,
///    "workers_ready": 4, "tasks_running": 4, "tasks_queued": 10,
///    "tasks_done": 86, "tasks_failed": 0}
inline constexpr const char* kControlStatus = "status";

/// The run's status in full, as `fiber top` and `fiber ps RUN` show it;
/// also what the master writes as it ends (runs::FinalNumbersPath). A
/// versioned message: "version" is kRunStatusVersion, raised when a field
/// changes meaning or goes; fields are only ever added within a version,
/// and a reader ignores those it does not know. Every number is a JSON
/// number; times in seconds; counters ("_total" in metrics) only grow.
///   {"version": 1, "pid": 123, "host": "node1", "elapsed_seconds": 12.5,
///    "master": {"cpu_seconds": 0.8, "cpu_percent": 1.5, "rss_bytes": 31457280},
///    the "status" fields above over the whole run, pools gone included,
///    and "tasks_submitted", "tasks_retried", "items_submitted",
///    "items_done", "workers_lost" likewise;
///    "pools": [{"pool": 1, "finished": false, "elapsed_seconds": 12.4,
///               "tasks_submitted", "tasks_done", "tasks_failed",
///               "tasks_retried", "items_submitted", "items_done",
///               "workers_started", "workers_lost"   (counters),
///               "tasks_running", "tasks_queued", "workers_wanted",
///               "workers_ready"                      (gauges),
///               "rate_now": 6.4 (tasks finished per second over the
///               last 5 s), "rate_average": 6.9 (since the pool started),
///               "eta_seconds": 14.5 (every task submitted so far done at
///               the rate now; null before any rate),
///               "task_seconds": {"bounds": [0.005, ..., 1800],
///                 "buckets": [n, ...] (one more than bounds, the last
///                 unbounded; each task in one), "sum": 84.1, "count": 86}
///               (from when a task began, as far as the master can
///               tell: dealt to an idle worker, or the worker's result
///               before it came, to its result)}, ...],
///    (the pools there, then the last that finished, "finished": true,
///    as they ended; at most kMostPoolsInStatus of each),
///    "pools_total": 1 (pools listed: at most kMostPoolsInStatus),
///    "workers": [{"id": "w3", "pool": 1, "pid": 4567, "state": "busy",
///                 "task": "square (item 41)", "task_seconds": 0.2,
///                 "tasks_done": 21, "ended": ""}, ...],
///    "workers_total": 4}
/// A worker's state is one of pending (its engine has it queued),
/// starting, ready, busy, retiring, lost; "ended" says why a lost one
/// ended. Workers listed: each pool's live ones and its last lost ones
/// (master/run_stats.hpp's kEndedWorkersKept), at most
/// kMostWorkersInStatus in all; "workers_total" counts them all.
inline constexpr const char* kControlRunStatus = "run-status";
inline constexpr int kRunStatusVersion = 1;
inline constexpr std::size_t kMostWorkersInStatus = 4096;
inline constexpr std::size_t kMostPoolsInStatus = 256;
/// The answer to any other request.
inline constexpr const char* kControlUnknownAnswer = R"({"error": "unknown request"})";

/// The largest request the master reads; every request above is far less.
inline constexpr std::int64_t kControlMaxRequestBytes = 4096;
/// How long a client waits to send, and then for the answer: a master
/// that takes longer is busy or gone.
inline constexpr int kControlAnswerMs = 1000;

}  // namespace fiber::runs
