// What one pool is made of and told to call: its size, its rules for tasks,
// what its workers are started with, and the callbacks of its owner. Read
// by the pool's service and by its two roles, dealing and the crew.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "config/settings.hpp"
#include "fiber/pool_options.hpp"
#include "master/peer_budget.hpp"
#include "master/sizer.hpp"
#include "wire/message.hpp"
#include "worker/bootstrap.hpp"

namespace fiber::master {

struct PoolServiceOptions {
  wire::Channel channel = 1;
  int processes = 1;
  /// Set: the pool sizes itself within these bounds, and processes is
  /// not used.
  using Elastic = Sizer::Elastic;
  std::optional<Elastic> elastic;
  int max_task_retries = 3;
  /// PoolOptions' task_timeout and max_tasks_per_child (fiber/pool_options.hpp).
  std::optional<std::chrono::milliseconds> task_timeout;
  std::optional<int> max_tasks_per_child;
  Call initializer;
  config::Settings settings;
  /// What every worker of the run is handed; worker_id is filled per worker.
  worker::Bootstrap bootstrap;
  /// A worker id unique within the run.
  std::function<std::string()> new_worker_id;
  /// Called once, when the pool has finished (closed and drained, or
  /// terminated) and every worker is gone.
  std::function<void()> on_finished;
  /// What each worker asks its backend for.
  Resources resources;
  /// False for a pool of one job-backed process (a Process, a Manager):
  /// a lost worker is not replaced, and every call, pending or later,
  /// fails with WorkerLost.
  bool replace_lost_workers = true;
  /// Called with every exit the backend reports for a worker of the pool.
  std::function<void(const backend::Exit&)> on_exit;
  /// The functions a MANAGER_CALL may run in this pool: a Manager's
  /// built-ins; empty for any other pool, which takes none.
  std::vector<std::string> manager_functions;
  /// Called when a worker has said HELLO: its id and pid.
  std::function<void(const std::string&, long)> on_connected;
  /// The run's budget (RequestService's): each result is charged to the
  /// worker that sent it, its bytes and wire::kHeldOverheadBytes per
  /// call, until the program drops the result (its AsyncResult or
  /// IMapResult; seen at the next Tick) or the pool goes. A worker holding all its bytes (or
  /// more) is dealt no more while another of the pool is within its own;
  /// a result larger than the whole budget is kept too (the message
  /// limit bounds it). Null: results are not charged.
  std::shared_ptr<PeerBudget> budget;
};

}  // namespace fiber::master
