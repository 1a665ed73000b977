// The run's I/O thread: it owns the one ROUTER socket every worker of the
// run connects to, routes each message to the pool it is for, drives the
// pools' timers, and runs work that user threads Post to it. Post,
// TakeNow, Start and the destructor are thread-safe; everything else runs
// on the I/O thread.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <zmq.hpp>

#include "config/settings.hpp"
#include "diagnostics/log.hpp"
#include "wire/admission.hpp"
#include "master/connection_watch.hpp"
#include "master/outbox.hpp"
#include "master/pool_service.hpp"
#include "master/pools.hpp"
#include "master/request_service.hpp"
#include "master/run_report.hpp"
#include "os/inbox.hpp"
#include "wire/credentials.hpp"
#include "wire/message.hpp"

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
  PoolService* FindPool(wire::Channel channel) { return pools_.Find(channel); }
  /// A worker id unique within the run (w0, w1, ...) for a worker of the
  /// pool on channel.
  std::string NewWorkerId(wire::Channel channel) { return pools_.NewWorkerId(channel); }
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
  const ConnectionBacklog& backlog() const { return connections_.backlog(); }

 private:
  void Loop();
  void FailRun(const std::string& why);
  void RunPosted();
  void Route(const std::string& id, const zmq::message_t& message);
  void OnRequest(const std::string& id, const zmq::message_t& message);
  void OnHello(const std::string& id, const wire::Header& header, const zmq::message_t& message);
  void Refuse(const std::string& id, std::uint8_t version, const std::string& reason);
  void Drop(const std::string& id, const std::string& why);
  /// Reads a bounded batch of messages off the socket and routes each.
  void ReceiveBatch();
  /// What every tick does: pools' timers, requests' waits, connections, report.
  void Tick(Clock::time_point now);
  config::Settings settings_;
  wire::Credentials credentials_;
  zmq::context_t context_;
  zmq::socket_t router_;
  std::unique_ptr<wire::Admission> admission_;
  std::string endpoint_;
  std::thread thread_;

  // Shared with user threads: closed once the I/O thread takes no more.
  os::Inbox<std::function<void()>> inbox_;

  // I/O thread only.
  Pools pools_;
  RequestService requests_;
  RunReport report_{pools_, requests_, Clock::now()};  // its sockets closed before context_
  ConnectionWatch connections_;
  std::atomic<wire::Channel> next_channel_{1};
  log::RateLimit dropped_;
};

}  // namespace fiber::master
