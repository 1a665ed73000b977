// The run's numbers as Prometheus metrics, for the /metrics page the master
// serves when the metrics setting names an address (http/get_server).
// Names follow Prometheus's conventions (fiber_tasks_completed_total,
// fiber_workers{state="ready"}); each pool's series carry pool="CHANNEL".
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "master/pool_service.hpp"

namespace fiber::master {

/// The exposition text of the pools' numbers and the run's own.
std::string RunMetricsText(const std::map<wire::Channel, std::unique_ptr<PoolService>>& pools,
                           std::uint64_t workers_started);

}  // namespace fiber::master
