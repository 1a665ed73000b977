// How a run's containers end, as the engine tells it: its event stream
// (GET /events) for containers labelled with the run, followed on a thread
// of its own from the moment this is made, so it holds the exit code of a
// container the engine removed as it ended (HostConfig.AutoRemove). "die"
// carries the exit code (exitCode) on Docker and Podman alike; "oom",
// before it, says the container was killed for its memory limit (Docker
// only: Podman 4.3 sends none). A broken stream is taken up again where it
// stopped. Thread-safe.
#pragma once

#include <atomic>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>

#include "engine/engine_client.hpp"

namespace fiber::backend {

class ContainerEvents {
 public:
  struct End {
    long exit_code = 0;
    bool oom_killed = false;
  };
  ContainerEvents(engine::Client engine, std::string run_id);
  ~ContainerEvents();

  /// How container id ended, once the engine has said it died.
  std::optional<End> EndOf(const std::string& id) const;
  /// Forgets container id, once its end has been taken.
  void Forget(const std::string& id);
  /// Why the stream fails, until it works again; "" while it works.
  std::string error() const;

 private:
  void Follow(engine::Client engine, std::string run_id);

  mutable std::mutex mu_;
  std::map<std::string, End> ended_;  // guarded by mu_: by container id
  std::set<std::string> oom_killed_;  // guarded by mu_: not yet seen to die
  std::string error_;                 // guarded by mu_
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace fiber::backend
