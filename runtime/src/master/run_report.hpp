// The run's report: its numbers as `fiber ps` ("status"), `fiber top` and
// `fiber ps RUN` ("run-status", master/run_status) and the /metrics page
// (master/run_metrics) show them, from its live pools and those gone, and
// the sockets it is served on (the control socket, the metrics server).
// Fed once per tick (the master's CPU) and as each pool goes; the time
// comes in as an argument, so a test moves it by hand. Not thread-safe:
// the dispatcher's I/O thread's.
#pragma once

#include <cstddef>
#include <deque>
#include <memory>
#include <string>
#include <utility>
#include <zmq.hpp>

#include "config/settings.hpp"
#include "http/get_server.hpp"
#include "master/control.hpp"
#include "master/pools.hpp"
#include "master/request_service.hpp"
#include "master/run_status.hpp"
#include "os/process_usage.hpp"

namespace fiber::master {

class RunReport {
 public:
  /// Reads the run's pools and requests (for the calls it forwarded) as
  /// they are when asked; started: when the run began.
  RunReport(const Pools& pools, const RequestService& requests, Clock::time_point started)
      : pools_(pools), requests_(requests), started_(started) {}

  /// Opens the control socket in settings.run_dir, when set (failing, only
  /// warned: fiber ps will not show the numbers), and the /metrics server
  /// where settings.metrics says, when set (failing, false with *err).
  [[nodiscard]] bool Serve(zmq::context_t& context, const config::Settings& settings,
                           std::string* err);
  /// Puts the open sockets to poll at items; returns how many (at most 2).
  std::size_t PollItems(zmq::pollitem_t* items);
  /// Answers each socket readable in items, as PollItems laid them out.
  void Answer(const zmq::pollitem_t* items, Clock::time_point now);
  /// Once the run is over: the final numbers, for fiber ps to show once
  /// the control socket is gone (only when there is one).
  void WriteFinal(const std::string& run_dir) const;

  /// Samples the master's CPU each second, and closes stale metrics connections.
  void Tick(Clock::time_point now);
  /// The pool on channel goes: its counters stay in the totals, its last
  /// snapshot among the finished (the last kMostPoolsInStatus).
  void PoolGone(wire::Channel channel, const PoolService& pool, Clock::time_point now);

  /// The "status" answer: the run's numbers, as JSON.
  std::string StatusJson() const;
  /// The "run-status" answer: with every pool's and worker's.
  std::string RunStatusJson(Clock::time_point now) const;
  /// The /metrics page: live pools, then those that ended.
  std::string MetricsText(Clock::time_point now) const;

 private:
  /// Over every pool, live or gone.
  PoolService::Status Totals() const;
  /// Each live pool's snapshot, by channel.
  RunStatus::Pools Snapshots(Clock::time_point now) const;
  [[nodiscard]] bool ServeMetrics(zmq::context_t& context, const std::string& address,
                                  std::string* err);

  const Pools& pools_;
  const RequestService& requests_;
  Clock::time_point started_;
  PoolCounters gone_;  // of removed pools
  std::deque<std::pair<wire::Channel, PoolService::Snapshot>> finished_;  // the last removed, as they ended
  os::CpuMeter cpu_;  // the master's own, sampled each second
  Clock::time_point last_cpu_sample_;
  std::unique_ptr<ControlSocket> control_;  // when the run has a directory
  std::unique_ptr<http::GetServer> metrics_;  // when the metrics setting is set
};

}  // namespace fiber::master
