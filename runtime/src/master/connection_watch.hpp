// The run's connections as the dispatcher watches them below its socket:
// what each holds (ConnectionBacklog), a connection holding too much closed
// and its worker lost; and which worker each carries (from its HELLO), so
// the worker of one that closed is probed until it is found lost. Not
// thread-safe: the dispatcher's I/O thread's.
#pragma once

#include <chrono>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "master/connection_backlog.hpp"
#include "master/pools.hpp"
#include "wire/frames.hpp"
#include "wire/limits.hpp"

namespace fiber::master {

class ConnectionWatch {
 public:
  /// limits: what each connection may hold; a closed connection's worker
  /// is probed for up to heartbeat_timeout.
  ConnectionWatch(Pools& pools, wire::BacklogLimits limits,
                  std::chrono::milliseconds heartbeat_interval,
                  std::chrono::milliseconds heartbeat_timeout)
      : pools_(pools), backlog_(limits, heartbeat_interval), heartbeat_timeout_(heartbeat_timeout) {}

  /// A connection the socket accepted.
  void Opened(const wire::PeerEvent& accepted, Clock::time_point now) { backlog_.Opened(accepted, now); }
  /// A connection closed: its worker, if any, is probed until a HEARTBEAT
  /// to it fails (lost) or the heartbeat timeout passes (the descriptor
  /// was reused by a new connection).
  void Closed(int fd, Clock::time_point now);
  /// Worker id said HELLO on fd.
  void Hello(int fd, const std::string& id) {
    if (fd >= 0) worker_on_fd_[fd] = id;
  }
  /// A message from id arrived; its connection is measured when due.
  void Read(const wire::Arrival& arrival, const std::string& id, Clock::time_point now);
  /// bytes were sent to worker id; its connection is measured at the next
  /// MeasureDue when due (after the pool that sent is done: closing loses
  /// a worker).
  void Sent(const std::string& id, std::size_t bytes);
  /// Measures the connections sent enough since the last call.
  void MeasureDue(Clock::time_point now);
  /// Probes the workers of closed connections, measures every connection,
  /// then closes the largest while all hold too much.
  void Tick(Clock::time_point now);

  const ConnectionBacklog& backlog() const { return backlog_; }

 private:
  void ProbeSuspects(Clock::time_point now);
  /// Measures what fd holds below ZeroMQ, closing it if too much.
  void Measure(int fd, Clock::time_point now);
  /// Closes a connection that holds too much; its worker is lost.
  void CloseHolding(const ConnectionBacklog::Excess& excess, Clock::time_point now);

  Pools& pools_;
  ConnectionBacklog backlog_;
  std::chrono::milliseconds heartbeat_timeout_;
  std::vector<int> due_;  // connections sent enough to be measured
  std::unordered_map<int, std::string> worker_on_fd_;  // from HELLO's ZMQ_SRCFD
  std::map<std::string, Clock::time_point> suspects_;  // connection closed at
};

}  // namespace fiber::master
