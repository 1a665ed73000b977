// Workers as containers of the local Docker or Podman engine, through its
// HTTP API (engine/engine_client.hpp). Each worker is the master's program,
// at the same path inside the image, on the host's network (so it reaches
// the run's one port on this machine), labelled with the run, its role and
// its id (backend/labels.hpp), with the run's cpu, memory and gpu
// settings as the engine's limits and device requests.
//
// The run's secret never enters the container's configuration (which
// `docker inspect` shows) nor a command line: between create and start, a
// mode-0400 file holding it is put into the container (PUT .../archive),
// and FIBER_CLIENT_KEY_FILE names it (worker/bootstrap.hpp); the worker
// deletes it once read.
//
// A container that ended is removed once its exit is seen, after its log is
// copied to the run's worker log (run_containers.hpp), so `fiber logs
// --worker` reads it after the container is gone. A worker that loses its
// master exits (heartbeat timeout), which ends its container; fiber run
// removes a run's containers when its master ends, however it ended.
//
// Driven from the master's I/O thread only, like every backend; not
// thread-safe. Every call has a limit: a few seconds for kill, list and
// inspect (engine::kShortCallMs), more for create and start.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "backend/backend.hpp"
#include "engine/engine_client.hpp"

namespace fiber::backend {

/// Where the secret's file is put in a worker's container.
inline constexpr const char* kSecretDir = "/.fiber";
inline constexpr const char* kSecretFile = "/.fiber/client_key";

/// The engine a backend runs its workers on: "docker" and "podman" for
/// those backends, the engine setting for "container"; "" for a backend
/// without containers.
std::string EngineOf(const std::string& backend, const std::string& engine_setting);

/// The engine a run's image is built in or loaded into: the one its
/// workers run on (EngineOf) when they run in containers, else the engine
/// setting (fiber image build, with no container backend).
std::string ImageEngineOf(const std::string& backend, const std::string& engine_setting);

class ContainerBackend : public Backend {
 public:
  /// For settings.backend, on EngineOf its engine.
  static std::unique_ptr<Backend> Make(const config::Settings& settings);
  ContainerBackend(std::string engine, config::Settings settings);
  ~ContainerBackend() override;
  const char* name() const override { return settings_.backend.c_str(); }
  [[nodiscard]] bool Start(const Launch& launch, std::string* err) override;
  void Kill(const std::string& worker_id) override;
  std::vector<Exit> Poll() override;
  void KillAll() override;

 private:
  struct Container {
    std::string id;
    std::string program;
    std::string log_file;
    bool killed = false;  // by Kill: its end needs no explaining
  };
  [[nodiscard]] bool Connect(std::string* err);
  nlohmann::json ConfigFor(const Launch& launch, const std::vector<std::string>& command) const;
  /// How the ended container c went ("exit status 127; its last output:
  /// ...") from the engine's record of it.
  std::string DescribeEnd(const Container& c);

  std::string engine_;
  config::Settings settings_;
  std::optional<engine::Client> client_;
  std::string run_id_;
  std::map<std::string, Container> containers_;  // running ones, by worker id
  bool poll_failing_ = false;                    // warned once until it answers again
};

}  // namespace fiber::backend
