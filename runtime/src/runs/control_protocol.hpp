// The protocol of a run's control socket, both ends' one reference: the
// master answers on it (master/control.*), fiber ps and fiber run's
// supervisor ask (cli/control_client.*). A ZeroMQ REQ/REP pair over a Unix
// socket in the run's directory (runs::ControlSocketPath); each request is
// one of the words below, each answer one JSON object. Constants only.
#pragma once

#include <cstdint>
#include <string>

#include "runs/run_dir.hpp"

namespace fiber::runs {

/// Where the master binds and a client connects, for the run in run_dir.
inline std::string ControlEndpoint(const std::string& run_dir) {
  return "ipc://" + ControlSocketPath(run_dir);
}

/// The master's numbers (workers wanted and ready, tasks queued, running,
/// done and failed), as `fiber ps` shows them.
inline constexpr const char* kControlStatus = "status";
/// Those numbers and each worker's state and task, as `fiber ps RUN` shows.
inline constexpr const char* kControlDetail = "detail";
/// The answer to any other request.
inline constexpr const char* kControlUnknownAnswer = R"({"error": "unknown request"})";

/// The largest request the master reads; every request above is far less.
inline constexpr std::int64_t kControlMaxRequestBytes = 4096;
/// How long a client waits to send, and then for the answer: a master
/// that takes longer is busy or gone.
inline constexpr int kControlAnswerMs = 1000;

}  // namespace fiber::runs
