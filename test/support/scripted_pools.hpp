// The run's pools (master/pools) with workers played by the test and no
// socket: every pool's messages recorded in one outbox, its workers
// started by one scripted backend. Not thread-safe.
#pragma once

#include <memory>

#include "master/pools.hpp"
#include "support/recording_outbox.hpp"
#include "support/scripted_backend.hpp"

namespace fiber::testing {

struct ScriptedPools {
  /// Adds and starts a pool of processes workers on channel; its worker
  /// ids are the run's (Pools::NewWorkerId).
  master::PoolService& Add(wire::Channel channel, master::Clock::time_point now, int processes = 1) {
    master::PoolService::Options o;
    o.channel = channel;
    o.processes = processes;
    o.bootstrap.run_id = "test";
    o.new_worker_id = [this, channel] { return pools.NewWorkerId(channel); };
    pools.Add(std::make_unique<master::PoolService>(std::move(o), std::make_unique<ScriptedBackend>(backend),
                                                    outbox));
    pools.Find(channel)->Start(now);
    return *pools.Find(channel);
  }

  RecordingOutbox outbox;
  std::shared_ptr<ScriptedBackend::State> backend = std::make_shared<ScriptedBackend::State>();
  master::Pools pools;
};

}  // namespace fiber::testing
