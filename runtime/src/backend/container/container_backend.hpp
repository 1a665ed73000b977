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
// Each container's output is copied as it comes (container_output.hpp; one
// thread follows them all, an http::StreamSet) to the worker's log file, where fiber run shows it live and fiber logs reads
// it. Containers are made with HostConfig.AutoRemove: the engine removes
// one as it ends, so a worker that loses its master (and exits after
// heartbeat_timeout) takes its container with it, whoever is left to
// clean up. How it ended comes from the engine's event stream
// (container_events.hpp), since the container is gone by then. fiber run
// and fiber stop remove whatever a run left (run_containers.hpp).
//
// Driven from the master's I/O thread only, like every backend; not
// thread-safe, though its starts and followers run on threads of their
// own. Start accepts: connecting to the engine (once), creating, keying and
// starting a container (whose attach may wait up to engine::kLongCallMs)
// happen on the start queue (backend/request_queue.hpp), and a start that
// fails comes back through Poll. What the I/O thread still asks of the engine has a limit of a few
// seconds (kill, remove: engine::kShortCallMs).
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "backend/container/container_events.hpp"
#include "backend/container/container_output.hpp"
#include "backend/container/container_start.hpp"
#include "backend/request_queue.hpp"
#include "engine/engine_client.hpp"
#include "os/mutex.hpp"

namespace fiber::backend {

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
  /// A start the queue finished: the container, or why there is none.
  struct Started {
    std::string worker_id;
    Container container;
    std::string error;
  };
  /// Connects to the engine and follows its events, once: on the start
  /// queue, as under load the engine may take seconds to answer; on a
  /// failure, every start after reports the same error.
  [[nodiscard]] bool Connect(const std::string& run_id, std::string* err);
  /// Takes the starts the queue finished into containers_, and the failed
  /// ones as exits.
  void TakeStarted(std::vector<Exit>* exits);
  /// How the ended container c went ("exit status 127; its last output:
  /// ...").
  EndCause DescribeEnd(const Container& c, const ContainerEvents::End& end) const;

  std::string engine_;
  config::Settings settings_;
  os::Mutex connect_mu_;                        // guards the connect of the start queue's threads:
  // Both set once under connect_mu_, before any start that uses them ends;
  // read without it after (not guarded: never changed again).
  std::optional<engine::Client> client_;
  std::unique_ptr<ContainerEvents> events_;
  std::string connect_error_ FIBER_GUARDED_BY(connect_mu_);
  http::StreamSet outputs_;                      // follows every container's output; outlives them
  std::map<std::string, Container> containers_;  // not yet seen to end, by worker id
  std::set<std::string> starting_;               // accepted, not yet taken from started_
  std::set<std::string> killed_starting_;        // of starting_: killed while under way
  std::vector<Exit> unborn_;                     // killed before their start began
  std::string warned_;                           // the events' error last said
  os::Mutex mu_;                                // guards what the start queue hands over:
  bool program_checked_ FIBER_GUARDED_BY(mu_) = false;  // in the image, by CheckProgramIn
  std::vector<Started> started_ FIBER_GUARDED_BY(mu_);
  std::unique_ptr<RequestQueue> starts_;         // last: its threads go before what they use
};

}  // namespace fiber::backend
