// The run's status in full (runs/control_protocol.hpp's "run-status"): the
// run's report (master/run_report) gathers it from its pools, this writes
// it as the protocol says. Plain data and one function: thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "master/pool_service.hpp"
#include "os/process_usage.hpp"
#include "wire/message.hpp"

namespace fiber::master {

struct RunStatus {
  long pid = 0;
  std::string host;
  double elapsed_seconds = 0;
  os::ProcessUsage master;
  double master_cpu_percent = 0;
  std::uint64_t workers_started = 0;
  std::uint64_t manager_calls_forwarded = 0;  // RequestService's
  PoolService::Status totals;  // over every pool (RunReport::Totals): its gauges
  PoolCounters gone;  // of pools no longer there
  using Pools = std::vector<std::pair<wire::Channel, PoolService::Snapshot>>;
  Pools pools;
  /// The last of those no longer there, as they ended (in gone already).
  Pools finished;
};

/// The "run-status" answer: JSON text.
std::string RunStatusJson(const RunStatus& status);

}  // namespace fiber::master
