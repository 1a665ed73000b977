// What a pool is asked to be (PoolOptions) and what it tells of its workers
// (WorkerInfo): the terms fiber::Pool and the run's master share, in a
// header of their own so the master needs nothing else of the API.
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>

#include "fiber/resources.hpp"
#include "fiber/task.hpp"

namespace fiber {

struct PoolOptions {
  // Every member has a default, so designated initializers may name any of
  // them (PoolOptions{.max_processes = 8}) without -Wextra's warning.
  /// Number of workers; 0 means one per core.
  int processes = 0;
  /// Default chunksize of map and starmap; 0 chooses like multiprocessing
  /// (about four chunks per worker).
  std::size_t chunksize = 0;
  /// How often a task may be lost with its worker and still run again.
  int max_task_retries = 3;
  /// Run once in each worker before its first task, e.g.
  /// fiber::call(seed_rng, 42).
  Call initializer{};
  /// The backend its workers run on: "local" (processes on this machine),
  /// "docker", "podman", "container", "kubernetes" or "slurm"; empty means
  /// the configured default. An unknown name throws ConfigError. A run has
  /// one backend of each name, shared by every pool that names it.
  std::string backend{};
  /// What each worker asks its backend for (fiber/resources.hpp).
  Resources resources{};
  /// An elastic pool when max_processes > 0: it holds from min_processes to
  /// max_processes workers (processes is not used), starting with
  /// min_processes, starting more while tasks wait for a worker and retiring
  /// a worker idle for idle_timeout. resize(n) turns it into a pool of n.
  int min_processes = 0;
  int max_processes = 0;
  std::chrono::milliseconds idle_timeout{std::chrono::seconds(30)};
  /// A task (a call of apply_async, imap or imap_unordered; a chunk of map
  /// or starmap) that runs longer is abandoned: its worker is killed and
  /// replaced, and its calls fail with TimeoutError, not retried. Timed by
  /// the master from when the worker could start it. Unset: no limit.
  std::optional<std::chrono::milliseconds> task_timeout{};
  /// multiprocessing's maxtasksperchild: a worker that has run this many
  /// tasks finishes, exits and is replaced by a new one. Unset: no limit.
  std::optional<int> max_tasks_per_child{};
};

/// Where a worker is in its life, as the master sees it.
enum class WorkerState {
  kStarting,  // started by its backend, not ready for tasks yet
  kReady,     // taking tasks
  kRetiring,  // finishing what it holds, then stopping (resize, close)
};
/// "starting", "ready", "retiring".
inline const char* to_string(WorkerState state) {
  switch (state) {
    case WorkerState::kStarting: return "starting";
    case WorkerState::kReady: return "ready";
    case WorkerState::kRetiring: return "retiring";
  }
  return "unknown";
}

/// One worker as the master sees it.
struct WorkerInfo {
  std::string id;  // e.g. "w3", unique within the run
  long pid = 0;    // as reported by the worker (0 before it connects)
  WorkerState state = WorkerState::kStarting;
  int running = 0;  // calls leased to it right now (a chunk of map or starmap counts one)
};

}  // namespace fiber
