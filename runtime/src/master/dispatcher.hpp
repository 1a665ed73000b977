// The run's I/O thread: it owns the one ROUTER socket every worker of the
// run connects to, routes each message to the pool it is for, drives the
// pools' timers, and runs work that user threads Post to it. Post,
// TakeNow, Start and the destructor are thread-safe; everything else runs
// on the I/O thread.
#pragma once

#include <atomic>
#include <chrono>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>
#include <zmq.hpp>

#include "config/settings.hpp"
#include "diagnostics/log.hpp"
#include "http/get_server.hpp"
#include "wire/admission.hpp"
#include "master/connection_backlog.hpp"
#include "master/control.hpp"
#include "master/outbox.hpp"
#include "master/pool_service.hpp"
#include "master/run_status.hpp"
#include "master/request_service.hpp"
#include "os/inbox.hpp"
#include "os/process_usage.hpp"
#include "wire/credentials.hpp"
#include "wire/message.hpp"
#include "worker/worker_id.hpp"

namespace fiber::master {

class Dispatcher : public Outbox {
 public:
  /// limits: what each worker may make the master hold, backlog: what each
  /// connection may hold below ZeroMQ (tests lower them).
  Dispatcher(config::Settings settings, wire::Credentials credentials,
             wire::PeerLimits limits = {}, wire::BacklogLimits backlog = {});
  /// Stops the I/O thread; pools still there kill their workers.
  ~Dispatcher() override;
  Dispatcher(const Dispatcher&) = delete;
  Dispatcher& operator=(const Dispatcher&) = delete;

  /// Lets workers on this machine hand large queue items through the
  /// run's item files (wire/item_files.hpp), when they can be made.
  /// Before Start.
  void UseItemFiles(const std::string& run_id);
  /// Binds the socket on the settings' host and port and starts the thread.
  [[nodiscard]] bool Start(std::string* err);
  /// tcp://host:port workers connect to.
  const std::string& endpoint() const { return endpoint_; }

  /// Runs fn on the I/O thread; false once that thread has ended.
  [[nodiscard]] bool Post(std::function<void()> fn);
  /// False once the I/O thread is stopping.
  bool running();

  /// A new channel for a pool about to be added.
  wire::Channel NewChannel() { return next_channel_++; }

  // I/O thread only.
  void AddPool(std::unique_ptr<PoolService> pool);
  void RemovePool(wire::Channel channel);
  PoolService* FindPool(wire::Channel channel);
  /// A worker id unique within the run: w0, w1, ...
  std::string NewWorkerId() { return worker::WorkerId(next_worker_++); }
  [[nodiscard]] bool Send(const std::string& worker_id, zmq::message_t message) override;
  /// A request from this process (the master's own Queue, Pipe or Manager
  /// calls), answered as a peer's REQUEST would be; a get may be given its
  /// items by deliver instead (QueueTable::Handle).
  void Handle(wire::Request request, QueueTable::Answer answer,
              QueueTable::Deliver deliver = nullptr) {
    requests_.Handle("", std::move(request), std::move(answer), Clock::now(), std::move(deliver));
  }
  /// The master's own get answered on the caller's thread, without a
  /// hand-off, when items are there (QueueTable::TakeNow). Thread-safe.
  bool TakeNow(const wire::Request& request, QueueTable::Taken* taken) {
    return requests_.TakeNow(request, taken);
  }
  const RequestService& requests() const { return requests_; }
  const ConnectionBacklog& backlog() const { return backlog_; }

 private:
  void Loop();
  void FailRun(const std::string& why);
  void RunPosted();
  void Route(const std::string& id, const zmq::message_t& message);
  void OnRequest(const std::string& id, const zmq::message_t& message);
  void OnHello(const std::string& id, const wire::Header& header, const zmq::message_t& message);
  void Refuse(const std::string& id, std::uint8_t version, const std::string& reason);
  void Drop(const std::string& id, const std::string& why);
  /// True when worker id has said HELLO and is still there.
  bool Connected(const std::string& id) const;
  /// A connection closed: its worker, if any, is probed until a HEARTBEAT
  /// to it fails (lost) or the heartbeat timeout passes (the descriptor
  /// was reused by a new connection).
  void OnClosed(int fd, Clock::time_point now);
  void ProbeSuspects(Clock::time_point now);
  /// Measures what fd holds below ZeroMQ, closing it if too much.
  void MeasureBacklog(int fd, Clock::time_point now);
  /// Measures every connection, then closes the largest while all hold too much.
  void SweepBacklogs(Clock::time_point now);
  /// Closes a connection that holds too much; its worker is lost.
  void CloseHolding(const ConnectionBacklog::Excess& excess, Clock::time_point now);
  /// The run's numbers, its pools' and those of pools already gone.
  PoolService::Status Totals() const;
  /// The run's numbers for the control socket, as JSON ("status").
  std::string StatusJson() const;
  /// The run's status in full, with every pool's and worker's
  /// ("run-status", master/run_status.hpp).
  std::string RunStatusJson() const;
  /// Each live pool's snapshot, by channel.
  RunStatus::Pools Snapshots(Clock::time_point now) const;
  /// The /metrics page: live pools, then those that ended (master/run_metrics).
  std::string MetricsText() const;
  /// Listens for /metrics where settings_.metrics says; false with *err.
  [[nodiscard]] bool ServeMetrics(std::string* err);

  config::Settings settings_;
  wire::Credentials credentials_;
  zmq::context_t context_;
  zmq::socket_t router_;
  std::unique_ptr<wire::Admission> admission_;
  std::unique_ptr<ControlSocket> control_;  // when the run has a directory
  std::unique_ptr<http::GetServer> metrics_;  // when the metrics setting is set
  std::string endpoint_;
  std::thread thread_;

  // Shared with user threads: closed once the I/O thread takes no more.
  os::Inbox<std::function<void()>> inbox_;

  // I/O thread only.
  std::map<wire::Channel, std::unique_ptr<PoolService>> pools_;
  PoolCounters gone_;  // of removed pools
  std::deque<std::pair<wire::Channel, PoolService::Snapshot>> finished_;  // the last removed, as they ended
  Clock::time_point started_ = Clock::now();
  os::CpuMeter cpu_;  // the master's own, sampled each second
  Clock::time_point last_cpu_sample_;
  RequestService requests_;
  ConnectionBacklog backlog_;
  std::vector<int> due_backlogs_;  // connections sent enough to be measured
  std::atomic<wire::Channel> next_channel_{1};
  std::uint64_t next_worker_ = 0;
  log::RateLimit dropped_;
  std::unordered_map<int, std::string> worker_on_fd_;  // from HELLO's ZMQ_SRCFD
  std::map<std::string, Clock::time_point> suspects_;  // connection closed at
};

}  // namespace fiber::master
