#include "master/dispatcher.hpp"

#include <unistd.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <utility>

#include "config/host_port.hpp"
#include "diagnostics/demangle.hpp"
#include "master/peer_budget.hpp"
#include "master/run_metrics.hpp"
#include "master/run_status.hpp"
#include "metrics/text_format.hpp"
#include "os/background_thread.hpp"
#include "runs/control_protocol.hpp"
#include "runs/run_dir.hpp"
#include "wire/codec.hpp"
#include "wire/frames.hpp"
#include "wire/keepalive.hpp"
#include "wire/poll.hpp"
#include "wire/request.hpp"

namespace fiber::master {

namespace {

// Why a worker id the run does not have is refused.
constexpr const char* kNoSuchWorker = "no worker of this run has that id";

}  // namespace

using wire::Type;

Dispatcher::Dispatcher(config::Settings settings, wire::Credentials credentials,
                       wire::PeerLimits limits, wire::BacklogLimits backlog)
    : settings_(std::move(settings)),
      credentials_(std::move(credentials)),
      context_(1),
      requests_([this](wire::Channel channel) { return FindPool(channel); },
                [this](const std::string& id) { return Connected(id); }, limits),
      backlog_(backlog, settings_.heartbeat_interval) {}

Dispatcher::~Dispatcher() {
  inbox_.Close("the run's master has stopped");
  if (thread_.joinable()) {
    inbox_.Wake();
    thread_.join();
  }
  if (control_) {
    // Once the I/O thread is gone the numbers are final. Only a master that
    // ends normally gets here; fiber run writes the file only when it did not.
    std::string err;
    if (!runs::WriteWhole(runs::FinalNumbersPath(settings_.run_dir), RunStatusJson(), &err))
      log::Warning(err + "; fiber ps will not show this run's final numbers");
  }
  pools_.clear();  // each kills its workers
  control_.reset();
  admission_.reset();
}

void Dispatcher::UseItemFiles(const std::string& run_id) {
  std::string err;  // when they cannot be made, items travel on the socket
  if (auto files = wire::ItemFiles::Create(run_id, &err)) requests_.UseItemFiles(std::move(files));
}

bool Dispatcher::Start(std::string* err) {
  if (!inbox_.Open(err)) return false;
  const std::string address =
      "tcp://" + settings_.listen_host + ":" + std::to_string(settings_.listen_port);
  try {
    router_ = zmq::socket_t(context_, zmq::socket_type::router);
    router_.set(zmq::sockopt::linger, 0);
    router_.set(zmq::sockopt::router_mandatory, 1);
    wire::LimitFrames(router_);
    router_.set(zmq::sockopt::curve_server, 1);
    router_.set(zmq::sockopt::curve_secretkey, credentials_.server_secret);
    // Its TTL makes a worker close its side when the master stops.
    wire::KeepAliveMaster(router_, settings_.heartbeat_interval, settings_.heartbeat_timeout);
    admission_ = std::make_unique<wire::Admission>(
        context_, router_,
        [this](const wire::PeerEvent& accepted) {
          (void)Post([this, accepted] { backlog_.Opened(accepted, Clock::now()); });
        },
        [this](int fd) {
          (void)Post([this, fd] {
            backlog_.Closed(fd);
            OnClosed(fd, Clock::now());
          });
        });
    router_.bind(address);
    endpoint_ = router_.get(zmq::sockopt::last_endpoint);
  } catch (const zmq::error_t& e) {
    *err = "cannot listen on " + address + ": " + e.what();
    return false;
  }
  if (!settings_.run_dir.empty()) {
    control_ = std::make_unique<ControlSocket>(context_, [this] { return StatusJson(); },
                                               [this] { return RunStatusJson(); });
    std::string control_err;
    if (!control_->Bind(settings_.run_dir, &control_err)) {
      log::Warning(control_err + "; fiber ps will not show this run's numbers");
      control_.reset();
    }
  }
  if (!settings_.metrics.empty() && !ServeMetrics(err)) return false;
  thread_ = StartBackgroundThread(
      [this] {
        Loop();
        RunPosted();  // work posted before the stop still runs
      },
      [this](const std::string& what) { FailRun("an internal error on the run's I/O thread (" + what + ")"); });
  return true;
}

void Dispatcher::RemovePool(wire::Channel channel) {
  const auto it = pools_.find(channel);
  if (it == pools_.end()) return;
  gone_.Add(it->second->Counters());
  finished_.emplace_back(channel, it->second->TakeSnapshot(Clock::now()));
  if (finished_.size() > runs::kMostPoolsInStatus) finished_.pop_front();
  pools_.erase(it);
}

PoolService::Status Dispatcher::Totals() const {
  PoolService::Status total;
  total.tasks_done = gone_.tasks_done;
  total.tasks_failed = gone_.tasks_failed;
  for (const auto& [channel, pool] : pools_) {
    const PoolService::Status s = pool->status();
    total.workers_wanted += s.workers_wanted;
    total.workers_ready += s.workers_ready;
    total.tasks_running += s.tasks_running;
    total.tasks_queued += s.tasks_queued;
    total.tasks_done += s.tasks_done;
    total.tasks_failed += s.tasks_failed;
  }
  return total;
}

namespace {

nlohmann::json StatusOf(const PoolService::Status& total, std::size_t pools,
                        std::uint64_t workers_started, std::uint64_t manager_calls_forwarded) {
  return {{"pid", ::getpid()},
          {"manager_calls_via_master", manager_calls_forwarded},
          {"pools", pools},
          {"workers_started", workers_started},
          {"workers_wanted", total.workers_wanted},
          {"workers_ready", total.workers_ready},
          {"tasks_running", total.tasks_running},
          {"tasks_queued", total.tasks_queued},
          {"tasks_done", total.tasks_done},
          {"tasks_failed", total.tasks_failed}};
}

}  // namespace

std::string Dispatcher::StatusJson() const {
  return StatusOf(Totals(), pools_.size(), next_worker_, requests_.manager_calls_forwarded()).dump();
}

RunStatus::Pools Dispatcher::Snapshots(Clock::time_point now) const {
  RunStatus::Pools pools;
  pools.reserve(pools_.size());
  for (const auto& [channel, pool] : pools_) pools.emplace_back(channel, pool->TakeSnapshot(now));
  return pools;
}

std::string Dispatcher::MetricsText() const {
  RunStatus::Pools pools = Snapshots(Clock::now());
  pools.insert(pools.end(), finished_.begin(), finished_.end());
  return RunMetricsText(pools, next_worker_);
}

std::string Dispatcher::RunStatusJson() const {
  const auto now = Clock::now();
  RunStatus status;
  status.pid = ::getpid();
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) == 0) status.host = host;
  status.elapsed_seconds = std::chrono::duration<double>(now - started_).count();
  if (os::ReadProcessUsage(&status.master)) status.master_cpu_percent = cpu_.Percent(now, status.master);
  status.workers_started = next_worker_;
  status.manager_calls_forwarded = requests_.manager_calls_forwarded();
  status.totals = Totals();
  status.gone = gone_;
  status.pools = Snapshots(now);
  status.finished.assign(finished_.begin(), finished_.end());
  return master::RunStatusJson(status);
}

bool Dispatcher::ServeMetrics(std::string* err) {
  std::string host;
  int port = 0;
  if (!config::ParseHostPort(settings_.metrics, &host, &port, err)) return false;
  metrics_ = std::make_unique<http::GetServer>(
      context_, "/metrics",
      http::GetServer::Page{metrics::kTextContentType, [this] { return MetricsText(); }});
  if (!metrics_->Listen(host, port, err)) {
    *err = "metrics: " + *err;
    metrics_.reset();
    return false;
  }
  log::Info("serving metrics at http://" + metrics_->address() + "/metrics");
  return true;
}

bool Dispatcher::Post(std::function<void()> fn) { return inbox_.Post(std::move(fn)); }

bool Dispatcher::running() { return !inbox_.closed(); }

void Dispatcher::RunPosted() {
  for (auto& fn : inbox_.Take()) fn();
}

void Dispatcher::AddPool(std::unique_ptr<PoolService> pool) {
  PoolService& p = *pool;
  pools_[p.channel()] = std::move(pool);
  p.Start(Clock::now());
}

PoolService* Dispatcher::FindPool(wire::Channel channel) {
  auto it = pools_.find(channel);
  return it == pools_.end() ? nullptr : it->second.get();
}

bool Dispatcher::Send(const std::string& worker_id, zmq::message_t message) {
  const std::size_t bytes = message.size();
  if (!wire::SendMessage(router_, worker_id, std::move(message))) return false;
  // Measured after the pool that sends is done: closing loses a worker.
  const int due = backlog_.Sent(worker_id, bytes);
  if (due >= 0) due_backlogs_.push_back(due);
  return true;
}

// Whatever it was (an engine's or API server's answer fiber did not expect,
// memory running out), it ends the run as one error its pools fail with,
// not as std::terminate ending the program.
void Dispatcher::FailRun(const std::string& why) {
  inbox_.Close(why);  // no more posts; waiters on running() stop waiting
  if (pools_.empty()) log::Error(why);
  try {
    for (auto& [channel, pool] : pools_) pool->Fail(why, Clock::now());
  } catch (...) {
    log::Error(why);  // nothing more can be done for the pools' callers
  }
  // Posted work that throws again is dropped: its promise, broken, still
  // wakes its waiter.
  for (;;) {
    try {
      RunPosted();
      return;
    } catch (...) {
    }
  }
}

void Dispatcher::Loop() {
  auto last_tick = Clock::now();
  const auto tick = std::min(settings_.heartbeat_interval, std::chrono::milliseconds(100));
  for (;;) {
    zmq::pollitem_t items[4] = {
        {router_.handle(), 0, ZMQ_POLLIN, 0},
        {nullptr, inbox_.fd(), ZMQ_POLLIN, 0},
    };
    std::size_t count = 2;
    const std::size_t control_item = control_ ? count++ : 0;
    if (control_) items[control_item] = {control_->handle(), -1, ZMQ_POLLIN, 0};
    const std::size_t metrics_item = metrics_ ? count++ : 0;
    if (metrics_) items[metrics_item] = {metrics_->handle(), -1, ZMQ_POLLIN, 0};
    const auto wait = std::max<Clock::duration>(Clock::duration::zero(),
                                                last_tick + tick - Clock::now());
    wire::Poll(items, count, std::chrono::duration_cast<std::chrono::milliseconds>(wait));
    if (items[1].revents & ZMQ_POLLIN) RunPosted();
    if (control_ && (items[control_item].revents & ZMQ_POLLIN)) control_->Answer();
    if (metrics_ && (items[metrics_item].revents & ZMQ_POLLIN)) metrics_->Serve(Clock::now());
    if (items[0].revents & ZMQ_POLLIN) {
      // Drain a bounded batch so timers and posted work keep their turn.
      for (int i = 0; i < 1024; ++i) {
        std::string id, err;
        zmq::message_t message;
        wire::Arrival arrival;
        const auto receipt = wire::ReceiveMessage(router_, true, &id, &message, &err,
                                                  zmq::recv_flags::dontwait, &arrival);
        if (receipt == wire::Receipt::kNone) break;
        if (backlog_.Read(arrival.fd, id, arrival.bytes, arrival.frames))
          MeasureBacklog(arrival.fd, Clock::now());
        if (receipt == wire::Receipt::kMalformed) {
          Drop(id, err);
          continue;
        }
        Route(id, message);
      }
      const auto now = Clock::now();
      for (auto& [channel, pool] : pools_) pool->Deal(now);
    }
    if (Clock::now() - last_tick >= tick) {
      last_tick = Clock::now();
      for (auto& [channel, pool] : pools_) pool->Tick(last_tick);
      ProbeSuspects(last_tick);
      requests_.Tick(last_tick);
      SweepBacklogs(last_tick);
      if (control_ && last_tick - last_cpu_sample_ >= std::chrono::seconds(1)) {
        last_cpu_sample_ = last_tick;
        cpu_.Sample(last_tick);
      }
      if (metrics_) metrics_->Sweep(last_tick);
    }
    for (int fd : std::exchange(due_backlogs_, {})) MeasureBacklog(fd, Clock::now());
    if (inbox_.closed()) break;
  }
}

void Dispatcher::Route(const std::string& id, const zmq::message_t& message) {
  wire::Header header;
  std::string err;
  if (!wire::ParseHeader(message, &header, &err)) return Drop(id, err);
  // A connection's first message (a worker's HELLO, a client's REQUEST)
  // shows its handshake done.
  if (header.type == Type::kHello || header.type == Type::kRequest)
    admission_->Proven(zmq_msg_get(message.handle(), ZMQ_SRCFD));
  if (header.type == Type::kHello) return OnHello(id, header, message);
  if (header.type == Type::kRequest && header.version == wire::kProtocolVersion)
    return OnRequest(id, message);
  PoolService* pool = header.version == wire::kProtocolVersion ? FindPool(header.channel) : nullptr;
  // A worker not yet welcomed knows no channel; its heartbeat is no fault.
  if (header.channel == wire::kRunChannel && header.type == Type::kHeartbeat)
    for (auto& [channel, owner] : pools_)
      if (owner->HasConnected(id)) pool = owner.get();
  if (pool && pool->OnMessage(id, header.type, message, Clock::now())) return;
  // A worker the run no longer has (killed while its job holds others:
  // workers_per_job, backend/job_packing.hpp) leaves when refused.
  if (std::none_of(pools_.begin(), pools_.end(), [&](const auto& p) { return p.second->Owns(id); })) {
    if (dropped_.Allow()) Refuse(id, header.version, kNoSuchWorker);
    return;
  }
  if (dropped_.Allow())
    log::Warning(std::string("dropped ") + wire::TypeName(header.type) + " for pool " +
                 std::to_string(header.channel) + " from '" + id +
                 "', which is not a connected worker of that pool");
  // A worker of one pool that writes to another is faulty or hostile.
  for (auto& [channel, other] : pools_)
    if (other.get() != pool && other->HasConnected(id))
      other->LoseWorker(id, std::string("it sent ") + wire::TypeName(header.type) +
                                " for pool " + std::to_string(header.channel) +
                                ", which it does not belong to",
                        Clock::now());
}

// A worker that has said HELLO may ask, on its own connection or its
// client's (RequestService checks).
void Dispatcher::OnRequest(const std::string& id, const zmq::message_t& message) {
  wire::Request request;
  std::string err;
  if (!wire::Decode(message, &request, &err)) return Drop(id, err);
  const std::uint64_t rid = request.id;
  requests_.Handle(
      id, std::move(request),
      [this, id, rid](wire::Status status, std::string_view body) {
        return Send(id, wire::EncodeReply(rid, status, body));
      },
      Clock::now());
}

void Dispatcher::OnHello(const std::string& id, const wire::Header& header,
                         const zmq::message_t& message) {
  if (header.version != wire::kProtocolVersion)
    return Refuse(id, header.version,
                  "the worker speaks fiber protocol version " + std::to_string(header.version) +
                      " but this master speaks version " +
                      std::to_string(wire::kProtocolVersion) +
                      "; build master and workers from the same fiber release");
  wire::Hello hello;
  std::string err;
  for (auto& [channel, pool] : pools_) {
    if (!pool->Owns(id)) continue;
    if (!wire::Decode(message, &hello, &err))
      return pool->LoseWorker(id, "it sent " + err, Clock::now());
    if (!pool->OnHello(id, hello, Clock::now()))
      return Refuse(id, header.version, "a worker with that id is connected already");
    const int fd = zmq_msg_get(message.handle(), ZMQ_SRCFD);
    if (fd >= 0) worker_on_fd_[fd] = id;
    return;
  }
  Refuse(id, header.version, kNoSuchWorker);
}

// Without this, a closed connection shows only when something is next sent
// to its worker: for an idle worker, the periodic probe a heartbeat timeout
// later. The event can come before libzmq has dropped the peer from the
// socket, so the probe repeats each tick for a while.
void Dispatcher::OnClosed(int fd, Clock::time_point now) {
  auto it = worker_on_fd_.find(fd);
  if (it == worker_on_fd_.end()) return;
  suspects_[it->second] = now;
  worker_on_fd_.erase(it);
  ProbeSuspects(now);
}

void Dispatcher::ProbeSuspects(Clock::time_point now) {
  for (auto it = suspects_.begin(); it != suspects_.end();) {
    bool keep = false;
    if (now - it->second < settings_.heartbeat_timeout)
      for (auto& [channel, pool] : pools_)
        if (pool->Probe(it->first, now)) keep = true;
    it = keep ? std::next(it) : suspects_.erase(it);
  }
}

void Dispatcher::MeasureBacklog(int fd, Clock::time_point now) {
  TcpCounts counts;
  if (!ReadTcpCounts(fd, &counts)) return;  // closed; its DISCONNECTED is on its way
  if (const auto excess = backlog_.Measure(fd, counts, now)) CloseHolding(*excess, now);
}

void Dispatcher::SweepBacklogs(Clock::time_point now) {
  for (int fd : backlog_.Connections()) MeasureBacklog(fd, now);
  while (const auto excess = backlog_.OverTotal()) CloseHolding(*excess, now);
}

// The counters read may have been another descriptor's, the number reused
// before its connection's DISCONNECTED was handled: ShutDown acts only on
// the connection it was. libzmq then reads the end of the stream and frees
// what it held for it.
void Dispatcher::CloseHolding(const ConnectionBacklog::Excess& excess, Clock::time_point now) {
  if (!wire::ShutDown(excess.accepted)) return;
  const std::string worker = PeerBudget::PeerOf(excess.id);
  log::Warning("closed the connection " +
               (excess.id.empty() ? std::string("from ") + excess.accepted.peer
                                  : "of worker " + worker + " (" + excess.accepted.peer + ")") +
               ": it holds " + excess.what);
  if (worker.empty()) return;
  for (auto& [channel, pool] : pools_)
    if (pool->Owns(worker))
      pool->LoseWorker(worker, "its connection held " + excess.what, now);
}

bool Dispatcher::Connected(const std::string& id) const {
  for (const auto& [channel, pool] : pools_)
    if (pool->HasConnected(id)) return true;
  return false;
}

void Dispatcher::Refuse(const std::string& id, std::uint8_t version, const std::string& reason) {
  log::Warning("refused worker '" + id + "': " + reason);
  (void)Send(id, wire::Encode(wire::Refuse{reason}, version));
}

void Dispatcher::Drop(const std::string& id, const std::string& why) {
  if (dropped_.Allow()) log::Warning("dropped a malformed message from '" + id + "': " + why);
  for (auto& [channel, pool] : pools_)
    if (pool->HasConnected(id))
      pool->LoseWorker(id, "it sent a malformed message (" + why + ")", Clock::now());
}

}  // namespace fiber::master
