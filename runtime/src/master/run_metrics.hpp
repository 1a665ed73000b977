// The run's numbers as Prometheus metrics, for the /metrics page the master
// serves when the metrics setting names an address (http/get_server): the
// same snapshots fiber top reads (PoolService::Snapshot), so both say the
// same. Names follow Prometheus's conventions (fiber_tasks_completed_total,
// fiber_workers{state="ready"}); each pool's series carry pool="CHANNEL".
#pragma once

#include <cstdint>
#include <string>

#include "master/run_status.hpp"

namespace fiber::master {

/// The exposition text of pools (live ones, then those that ended) and the
/// run's workers started.
std::string RunMetricsText(const RunStatus::Pools& pools, std::uint64_t workers_started);

}  // namespace fiber::master
