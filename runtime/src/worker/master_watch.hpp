// Ends a worker whose master is gone even while a long task keeps the serve
// loop busy. A thread watches the connection's events (never its messages:
// the socket stays the serve loop's) and exits the process once the
// connection to the master has been down for the timeout. The master's
// ZeroMQ heartbeats (ZMTP PING with a TTL) close a connection to a master
// that stopped answering, so a stopped master counts as down too.
#pragma once

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <zmq.hpp>

#include "os/wake_fd.hpp"
#include "wire/socket_monitor.hpp"

namespace fiber::worker {

class MasterWatch {
 public:
  /// Watches dealer, which must not be connected yet; master is its
  /// endpoint, for the exit message. Until SetTimeout, timeout is how long
  /// the first connection may take.
  MasterWatch(zmq::context_t& context, zmq::socket_t& dealer, std::string master,
              std::chrono::milliseconds timeout);
  /// Stops watching.
  ~MasterWatch();
  MasterWatch(const MasterWatch&) = delete;
  MasterWatch& operator=(const MasterWatch&) = delete;

  /// The run's heartbeat timeout, once the master has told it.
  void SetTimeout(std::chrono::milliseconds timeout);

 private:
  void Run();

  wire::SocketMonitor events_;  // used by thread_ only
  std::string master_;
  std::atomic<long long> timeout_ms_;
  std::atomic<bool> stop_{false};
  os::WakeFd wake_;  // makes the thread look at stop_ and the timeout
  std::thread thread_;
};

}  // namespace fiber::worker
