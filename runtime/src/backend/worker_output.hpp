// Where a worker's output goes when its backend copies it from a container
// or a pod: appended to the worker's log file (runs/run_dir.hpp), which
// fiber run and fiber logs read; without one (a master not started by
// fiber run), to this process's stderr, each line headed "[w3] ". Used by
// the container and Kubernetes backends and by fiber run and stop when they
// remove a run's containers; the local backend's fork server heads its
// workers' lines the same way (HeadedLine). Not thread-safe.
#pragma once

#include <string>
#include <string_view>

#include "backend/line_splitter.hpp"
#include "os/descriptor.hpp"

namespace fiber::backend {

/// A worker's line as shown among others on one stderr: "[w3] text\n".
std::string HeadedLine(std::string_view worker_id, std::string_view line);

class WorkerOutput {
 public:
  WorkerOutput(std::string worker_id, const std::string& log_file);
  ~WorkerOutput();
  WorkerOutput(const WorkerOutput&) = delete;
  WorkerOutput& operator=(const WorkerOutput&) = delete;

  /// How many bytes the log file held when opened (0 without one).
  long long kept() const { return kept_; }
  void Write(std::string_view text);
  /// Ends a last line left unfinished (on stderr only: a file keeps its
  /// bytes as they came).
  void Finish();

 private:
  std::string worker_id_;
  bool to_stderr_;
  os::Descriptor fd_;  // the log file
  long long kept_ = 0;
  LineSplitter lines_;  // for stderr
  std::string headed_;  // the lines of one Write, written at once
};

}  // namespace fiber::backend
