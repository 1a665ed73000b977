// A backend starts, stops and observes workers. It never carries task data:
// it hands a worker its bootstrap (worker/bootstrap.hpp) and reports how it
// ended. Every backend is driven from the master's I/O thread only.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "backend/end_cause.hpp"
#include "config/settings.hpp"
#include "os/exit_status.hpp"
#include "fiber/resources.hpp"
#include "worker/bootstrap.hpp"

namespace fiber::backend {

/// What a backend needs to start one worker.
struct Launch {
  worker::Bootstrap bootstrap;  // bootstrap.worker_id names the worker
  /// Where the worker's stdout and stderr go when the backend keeps no logs
  /// of its own; empty: where the master's go.
  std::string log_file;
  /// What the worker asks for; each backend applies what it can.
  Resources resources;
};

/// A worker the backend saw end.
struct Exit {
  std::string worker_id;
  /// Why it ended: its exit status or signal, or what the engine said of
  /// its end (killed for its memory limit, its pod evicted, ...).
  EndCause cause;
  ExitStatus status = {};
  /// The backend could not start it at all (a start it accepted, then
  /// found it could not make): cause.text says why, as a refused Start's
  /// error would.
  bool not_started = false;
};

/// How long KillAll waits for an engine to report its workers gone.
inline constexpr auto kKillAllWait = std::chrono::seconds(30);

class Backend {
 public:
  virtual ~Backend() = default;
  virtual const char* name() const = 0;
  /// Accepts a worker to start, never waiting on the engine; false with
  /// *err when it cannot be started at all (no engine, a setting that
  /// cannot work). A start that fails later comes back through Poll, as
  /// an Exit (not_started when the backend could not make it).
  [[nodiscard]] virtual bool Start(const Launch& launch, std::string* err) = 0;
  /// Starts several workers at once (a Slurm job array); by default one by
  /// one. False with *err when they could not be started at all.
  [[nodiscard]] virtual bool StartMany(const std::vector<Launch>& launches, std::string* err);
  /// Ends a worker now (e.g. SIGKILL); its exit is still reported by Poll.
  virtual void Kill(const std::string& worker_id) = 0;
  /// Workers that ended since the last call; never blocks.
  virtual std::vector<Exit> Poll() = 0;
  /// Workers that wait in a queue before they can start (Slurm's): their
  /// start_timeout counts from when they leave it, as the wait is not
  /// theirs. As of the last Poll.
  virtual std::vector<std::string> Queued() const { return {}; }
  /// A worker's connection closed: its engine is asked soon how it ended,
  /// so that Poll reports it before the master stops waiting (2 s,
  /// master/pool_service.cpp) and the loss says why (its job cancelled, not only
  /// its connection lost). For a backend that looks at its engine slowly.
  virtual void ConnectionClosed(const std::string& /*worker_id*/) {}
  /// Kills every remaining worker and waits until they are gone, at most
  /// kKillAllWait for an engine that reports their end later.
  virtual void KillAll() = 0;
  /// How many workers may be starting (started, not yet connected) at once.
  /// Starting more at a time only makes each slower: thousands of processes
  /// starting together starve the master that must admit them.
  virtual int MaxStarting() const { return 64; }
};


}  // namespace fiber::backend
