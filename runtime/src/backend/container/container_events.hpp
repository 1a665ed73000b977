// How a run's containers end, as the engine tells it: its event stream
// (GET /events) for containers labelled with the run, followed on a thread
// of its own from the moment this is made, so it holds the exit code of a
// container the engine removed as it ended (HostConfig.AutoRemove). "die"
// carries the exit code (exitCode) on Docker and Podman alike; "oom",
// before it, says the container was killed for its memory limit (Docker
// only: Podman 4.3 sends none). A broken stream is taken up again where it
// stopped, a second later (backend/engine_watch.hpp). Thread-safe.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>

#include "backend/engine_watch.hpp"
#include "engine/engine_client.hpp"

namespace fiber::backend {

class ContainerEvents {
 public:
  struct End {
    long exit_code = 0;
    bool oom_killed = false;
  };
  ContainerEvents(engine::Client engine, std::string run_id);

  /// How container id ended, once the engine has said it died.
  std::optional<End> EndOf(const std::string& id) const;
  /// Forgets container id, once its end has been taken.
  void Forget(const std::string& id);
  /// Why the stream fails, until it works again; "" while it works.
  std::string error() const;

 private:
  struct Seen {
    std::map<std::string, End> ended;  // by container id
    std::set<std::string> oom_killed;  // not yet seen to die
  };
  /// The watch's step: the events from *since on, until the stream breaks.
  static bool Follow(const engine::Client& engine, const std::string& run_id, long long* since,
                     EngineWatch<Seen>& watch, std::string* err);

  EngineWatch<Seen> watch_;
};

}  // namespace fiber::backend
