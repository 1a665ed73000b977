// One container's output as it is produced, through the engine's attach
// endpoint on a thread of its own. It attaches before the container starts
// (as docker run does), so nothing is missed, even of a container that the
// engine removes the moment it ends (HostConfig.AutoRemove). The output
// goes where the worker's goes (backend/worker_output.hpp), and its last
// bytes are kept to explain a failed end. The stream ends when the
// container stops; destroying this stops following at once.
// Thread-safe.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "engine/engine_client.hpp"

namespace fiber::backend {

class ContainerOutput {
 public:
  /// Attaches to container id (created, not yet started) and returns once
  /// the engine has attached (at most engine::kLongCallMs); nullptr with
  /// *err (the engine's reason) when it cannot.
  static std::unique_ptr<ContainerOutput> Attach(const engine::Client& engine, const std::string& id,
                                                 const std::string& worker_id,
                                                 const std::string& log_file, std::string* err);
  ~ContainerOutput();

  /// True once the stream ended: the container stopped, or the engine
  /// went away.
  bool ended() const;
  /// Waits (up to timeout) until the stream ends; ended().
  bool WaitEnded(std::chrono::milliseconds timeout) const;
  /// The last bytes of its output (a few KiB).
  std::string last_output() const;

 private:
  enum class State { kAttaching, kAttached, kEnded };
  ContainerOutput() = default;
  void Follow(engine::Client engine, std::string id, std::string worker_id, std::string log_file);

  mutable std::mutex mu_;
  mutable std::condition_variable changed_;
  State state_ = State::kAttaching;  // guarded by mu_
  std::string error_;                // guarded by mu_: why it did not attach
  std::string last_;                 // guarded by mu_
  std::atomic<bool> cancel_{false};
  std::thread thread_;
};

}  // namespace fiber::backend
