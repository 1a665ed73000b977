// Follows the workers' log files of a run (one per worker, appended to by
// the runtime) and hands each complete new line on with the worker's id, so
// fiber run can show "[w3] ..." on stderr and fiber logs -f can follow.
// It reads a file in blocks and holds at most an unfinished line of each
// (backend/line_splitter.hpp): time linear in the output, memory bounded.
// Not thread-safe.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>

#include "backend/line_splitter.hpp"

namespace fiber::cli {

class LogFollower {
 public:
  using Sink = std::function<void(const std::string& worker_id, const std::string& line)>;
  /// Follows the *.log files of dir (only worker_id's, when not empty).
  LogFollower(std::string dir, Sink sink, std::string worker_id = {})
      : dir_(std::move(dir)), only_(std::move(worker_id)), sink_(std::move(sink)) {}
  /// Hands on every complete line written since the last call.
  void Poll();
  /// Poll, then hands on what is left of unfinished lines.
  void Flush();

 private:
  struct File {
    long long offset = 0;
    std::unique_ptr<backend::LineSplitter> lines;
  };
  std::string dir_, only_;
  Sink sink_;
  std::map<std::string, File> files_;  // by worker id
};

}  // namespace fiber::cli
