// One container's output as it is produced, through the engine's attach
// endpoint, as one exchange of the backend's http::StreamSet (one thread
// follows every container of the run). It attaches before the container
// starts (as docker run does), so nothing is missed, even of a container
// that the engine removes the moment it ends (HostConfig.AutoRemove). The
// output goes where the worker's goes (backend/worker_output.hpp), and its
// last bytes are kept to explain a failed end. The stream ends when the
// container stops; destroying this stops following at once.
// Thread-safe.
#pragma once

#include <chrono>
#include <condition_variable>
#include <memory>
#include <string>

#include "backend/worker_output.hpp"
#include "engine/engine_client.hpp"
#include "http/stream_set.hpp"
#include "os/mutex.hpp"

namespace fiber::backend {

class ContainerOutput {
 public:
  /// Attaches to container id (created, not yet started) among streams
  /// (which must outlive it) and returns once the engine has attached (at
  /// most engine::kLongCallMs); nullptr with *err (the engine's reason)
  /// when it cannot.
  static std::unique_ptr<ContainerOutput> Attach(http::StreamSet& streams, const engine::Client& engine,
                                                 const std::string& id, const std::string& worker_id,
                                                 const std::string& log_file, std::string* err);
  ~ContainerOutput();
  ContainerOutput(const ContainerOutput&) = delete;
  ContainerOutput& operator=(const ContainerOutput&) = delete;

  /// True once the stream ended: the container stopped, or the engine
  /// went away.
  bool ended() const;
  /// Waits (up to timeout) until the stream ends; ended().
  bool WaitEnded(std::chrono::milliseconds timeout) const;
  /// The last bytes of its output (a few KiB).
  std::string last_output() const;

 private:
  enum class State { kAttaching, kAttached, kEnded };
  ContainerOutput(http::StreamSet& streams, std::string worker_id, const std::string& log_file)
      : streams_(streams), sink_(std::move(worker_id), log_file) {}
  // The stream's news, on the set's thread.
  void Attached();
  void Output(std::string_view text);
  void Ended(const std::string& err);

  http::StreamSet& streams_;
  http::StreamSet::Id stream_ = 0;
  WorkerOutput sink_;  // the set's thread's
  mutable os::Mutex mu_;
  mutable std::condition_variable changed_;
  State state_ FIBER_GUARDED_BY(mu_) = State::kAttaching;
  std::string error_ FIBER_GUARDED_BY(mu_);  // why it did not attach
  std::string last_ FIBER_GUARDED_BY(mu_);
};

}  // namespace fiber::backend
