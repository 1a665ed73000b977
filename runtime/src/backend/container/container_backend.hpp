// Workers as containers of the local Docker or Podman engine, through its
// HTTP API (engine/engine_client.hpp). Each worker is the master's program,
// at the same path inside the image, on the host's network (so it reaches
// the run's one port on this machine) or on the engine network the network
// setting names (a bridge: it reaches the master at the bridge's gateway
// address, which the master must listen on), labelled with the run, its
// role and its id (backend/labels.hpp), with the run's cpu, memory and gpu
// settings as the engine's limits and device requests.
//
// The run's secret never enters the container's configuration (which
// `docker inspect` shows) nor a command line: between create and start, a
// mode-0400 file holding it is put into the container (PUT .../archive),
// and FIBER_CLIENT_KEY_FILE names it (worker/bootstrap.hpp); the worker
// deletes it once read.
//
// Each container's output is copied as it comes (container_output.hpp) to
// the worker's log file, where fiber run shows it live and fiber logs reads
// it. Containers are made with HostConfig.AutoRemove: the engine removes
// one as it ends, so a worker that loses its master (and exits after
// heartbeat_timeout) takes its container with it, whoever is left to
// clean up. How it ended comes from the engine's event stream
// (container_events.hpp), since the container is gone by then. fiber run
// and fiber stop remove whatever a run left (run_containers.hpp).
//
// Driven from the master's I/O thread only, like every backend; not
// thread-safe, though its followers run on threads of their own. Every
// call on the I/O thread has a limit: a few seconds for kill and inspect
// (engine::kShortCallMs), more for create and start.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "backend/backend.hpp"
#include "backend/container/container_events.hpp"
#include "backend/container/container_output.hpp"
#include "engine/engine_client.hpp"

namespace fiber::backend {

/// Where the secret's file is put in a worker's container.
inline constexpr const char* kSecretDir = "/.fiber";
inline constexpr const char* kSecretFile = "/.fiber/client_key";

class ContainerBackend : public Backend {
 public:
  /// For settings.backend, on its engine (config::EngineOf).
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
    std::unique_ptr<ContainerOutput> output;
    std::int64_t memory_mb = 0;  // its limit, 0 for none
    bool killed = false;         // by Kill: its end needs no explaining
    /// When its output or its die event came, the other not yet.
    std::optional<std::chrono::steady_clock::time_point> ending;
  };
  [[nodiscard]] bool Connect(const std::string& run_id, std::string* err);
  nlohmann::json ConfigFor(const Launch& launch, const std::vector<std::string>& command) const;
  /// How the ended container c went ("exit status 127; its last output:
  /// ...").
  EndCause DescribeEnd(const Container& c, const ContainerEvents::End& end) const;

  std::string engine_;
  config::Settings settings_;
  std::optional<engine::Client> client_;
  std::unique_ptr<ContainerEvents> events_;
  bool program_checked_ = false;                 // in the image, by CheckProgramIn
  std::map<std::string, Container> containers_;  // not yet seen to end, by worker id
  std::string warned_;                           // the events' error last said
};

}  // namespace fiber::backend
