#include "master/dispatcher.hpp"

#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <future>
#include <optional>

#include "log.hpp"
#include "wire/task_batch.hpp"
#include "wire/message.hpp"

namespace fiber::detail {

using wire::Type;

namespace {

std::string Seconds(std::chrono::milliseconds ms) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f s", ms.count() / 1000.0);
  return buf;
}

}  // namespace

Dispatcher::Dispatcher(Options options, std::unique_ptr<backend::Backend> backend)
    : options_(std::move(options)), backend_(std::move(backend)), context_(1) {}

Dispatcher::~Dispatcher() {
  if (thread_.joinable()) {
    Terminate();
    Join();
    thread_.join();
  }
  if (wake_fd_ >= 0) ::close(wake_fd_);
}

bool Dispatcher::Start(std::string* err) {
  wake_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (wake_fd_ < 0) {
    *err = "cannot create eventfd";
    return false;
  }
  try {
    router_ = zmq::socket_t(context_, zmq::socket_type::router);
    router_.set(zmq::sockopt::linger, 0);
    router_.set(zmq::sockopt::router_mandatory, 1);
    router_.set(zmq::sockopt::sndhwm, 0);
    router_.set(zmq::sockopt::rcvhwm, 0);
    router_.set(zmq::sockopt::curve_server, 1);
    router_.set(zmq::sockopt::curve_secretkey, options_.credentials.server_secret);
    router_.set(zmq::sockopt::zap_domain, "fiber");
    // ZeroMQ's own heartbeats (answered by libzmq's I/O thread, so a worker
    // busy with a long task still answers) close the connection of a stopped
    // worker; the TTL makes a worker close its side when the master stops.
    const auto& s = options_.settings;
    router_.set(zmq::sockopt::heartbeat_ivl, static_cast<int>(s.heartbeat_interval.count()));
    router_.set(zmq::sockopt::heartbeat_timeout, static_cast<int>(s.heartbeat_timeout.count()));
    router_.set(zmq::sockopt::heartbeat_ttl, static_cast<int>(s.heartbeat_timeout.count()));
    admission_ = std::make_unique<master::Admission>(context_, router_,
                                                     options_.credentials.client_public);
    router_.bind("tcp://" + options_.settings.listen_host + ":0");
    endpoint_ = router_.get(zmq::sockopt::last_endpoint);
  } catch (const zmq::error_t& e) {
    *err = "cannot listen on " + options_.settings.listen_host + ": " + e.what();
    return false;
  }
  target_ = options_.processes;
  started_ = true;
  thread_ = std::thread([this] { Run(); });
  return true;
}

bool Dispatcher::Post(std::function<void()> fn) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (finished_) return false;  // the I/O thread has stopped reading
    inbox_.push_back(std::move(fn));
    // The I/O thread reads the eventfd before it takes the inbox, so work
    // queued behind other work is taken with it: only the first needs a wake.
    if (inbox_.size() > 1) return true;
  }
  const std::uint64_t one = 1;
  if (::write(wake_fd_, &one, sizeof one) < 0) {
    // The counter can only saturate; the loop drains it, so nothing is lost.
  }
  return true;
}

void Dispatcher::RunPosted() {
  std::uint64_t count;
  if (::read(wake_fd_, &count, sizeof count) < 0) {
    // EAGAIN: a previous drain already took the wakeup.
  }
  std::vector<std::function<void()>> work;
  {
    std::lock_guard<std::mutex> lock(mu_);
    work.swap(inbox_);
  }
  for (auto& fn : work) fn();
}

void Dispatcher::Submit(std::string function, std::vector<std::string> calls,
                        std::size_t chunksize, std::shared_ptr<Batch> batch) {
  Post([this, function = std::move(function), calls = std::move(calls), chunksize,
        batch = std::move(batch)]() mutable {
    if (!broken_.empty() || terminating_) {
      batch->complete(0, std::vector<Outcome>(
                             calls.size(), Outcome{terminating_ ? Outcome::Kind::kPoolClosed
                                                                : broken_kind_,
                                                   terminating_ ? "pool terminated" : broken_}));
      return;
    }
    for (std::size_t first = 0; first < calls.size(); first += chunksize) {
      master::Task task;
      task.function = function;
      task.batch = batch;
      task.first = first;
      const std::size_t end = std::min(calls.size(), first + chunksize);
      task.calls.assign(std::make_move_iterator(calls.begin() + first),
                        std::make_move_iterator(calls.begin() + end));
      tasks_.Add(std::move(task));
    }
    Dispatch();
  });
}

void Dispatcher::Resize(int processes) {
  Post([this, processes] {
    if (closing_ || terminating_) return;
    target_ = processes;
    StartWorkers();
    Retire();
  });
}

void Dispatcher::Close() {
  Post([this] {
    closing_ = true;
    CheckFinished();
  });
}

void Dispatcher::Terminate() {
  Post([this] {
    if (terminating_) return;
    terminating_ = true;
    closing_ = true;
    tasks_.FailAll(Outcome::Kind::kPoolClosed, "pool terminated");
    for (auto& [id, worker] : workers_) {
      if (worker.connected && !worker.stop_sent) SendControl(id, Type::kStop);
      backend_->Kill(id);
    }
    CheckFinished();
  });
}

void Dispatcher::Join() {
  std::unique_lock<std::mutex> lock(mu_);
  finished_cv_.wait(lock, [this] { return finished_ || !started_; });
}

std::vector<WorkerInfo> Dispatcher::Workers() {
  auto promise = std::make_shared<std::promise<std::vector<WorkerInfo>>>();
  auto future = promise->get_future();
  if (!Post([this, promise] {
    std::vector<WorkerInfo> out;
    for (const auto& [id, w] : workers_) {
      const char* state = w.state == Worker::State::kReady      ? "ready"
                          : w.state == Worker::State::kRetiring ? "retiring"
                                                                : "starting";
      int running = 0;
      for (auto lease : w.leases)
        if (const master::Task* task = tasks_.Find(lease))
          running += static_cast<int>(task->calls.size());
      out.push_back({id, w.pid, state, running});
    }
    promise->set_value(std::move(out));
  }))
    return {};
  return future.get();
}

void Dispatcher::Run() {
  last_tick_ = Clock::now();
  StartWorkers();
  const auto tick = std::min(options_.settings.heartbeat_interval, std::chrono::milliseconds(100));
  for (;;) {
    zmq::pollitem_t items[] = {
        {router_.handle(), 0, ZMQ_POLLIN, 0},
        {nullptr, wake_fd_, ZMQ_POLLIN, 0},
    };
    const auto wait = std::max<Clock::duration>(
        Clock::duration::zero(), last_tick_ + tick - Clock::now());
    zmq::poll(items, 2, std::chrono::duration_cast<std::chrono::milliseconds>(wait));
    if (items[1].revents & ZMQ_POLLIN) RunPosted();
    if (items[0].revents & ZMQ_POLLIN) {
      // Drain a bounded batch so timers and posted work keep their turn.
      for (int i = 0; i < 1024; ++i) {
        zmq::multipart_t message;
        if (!message.recv(router_, ZMQ_DONTWAIT)) break;
        OnMessage(message);
      }
      Dispatch();
    }
    if (Clock::now() - last_tick_ >= tick) {
      last_tick_ = Clock::now();
      Tick();
    }
    std::lock_guard<std::mutex> lock(mu_);
    if (finished_) break;
  }
  RunPosted();  // work posted before finished_ was set still gets its answer
}

void Dispatcher::OnMessage(zmq::multipart_t& message) {
  if (message.size() < 2) return;  // a ROUTER message always has an identity
  const std::string id = message.popstr();
  wire::Header header;
  std::string err;
  auto it = workers_.find(id);
  const bool one_frame = message.size() == 1;
  if (!one_frame) err = "a message of " + std::to_string(message.size()) + " frames, not one";
  if (!one_frame || !wire::ParseHeader(message.front(), &header, &err)) {
    if (++bad_messages_ <= 10 || bad_messages_ % 1000 == 0)
      log::Warning("dropped a malformed message from '" + id + "': " + err);
    if (it != workers_.end() && it->second.connected)
      LoseWorker(id, "it sent a malformed message (" + err + ")");
    return;
  }
  const zmq::message_t& body = message.front();
  if (header.type == Type::kHello) return OnHello(id, header.version, body);
  if (it == workers_.end() || !it->second.connected || header.version != wire::kProtocolVersion) {
    if (++bad_messages_ <= 10 || bad_messages_ % 1000 == 0)
      log::Warning(std::string("dropped ") + wire::TypeName(header.type) +
                   " from '" + id + "', which is not a connected worker of this pool");
    return;
  }
  Worker& worker = it->second;
  worker.last_heard = Clock::now();
  switch (header.type) {
    case Type::kReady: {
      wire::Reader r(body);
      std::uint32_t credit = 0;
      if (!r.U32(&credit) || !r.AtEnd() || credit == 0 || credit > kMaxCredit)
        return LoseWorker(id, "it sent a malformed READY");
      worker.credit = static_cast<int>(credit);
      if (worker.state == Worker::State::kStarting) worker.state = Worker::State::kReady;
      start_failures_ = 0;
      Retire();
      return;
    }
    case Type::kResult: return OnResult(id, worker, body);
    case Type::kHeartbeat: return;
    case Type::kInitFailed: {
      const std::string why(wire::Reader(body).Rest());
      const auto nl = why.find('\n');
      return Break(Outcome::Kind::kRemoteError,
                   nl == std::string::npos
                       ? "unknown\nthe pool initializer failed: " + why
                       : why.substr(0, nl) + "\nthe pool initializer failed in worker " + id +
                             ": " + why.substr(nl + 1));
    }
    default:
      return LoseWorker(id, std::string("it sent ") + wire::TypeName(header.type) +
                                ", which only a master sends");
  }
}

void Dispatcher::OnHello(const std::string& id, std::uint8_t version, const zmq::message_t& body) {
  auto refuse = [&](const std::string& reason) {
    log::Warning("refused worker '" + id + "': " + reason);
    Send(id, wire::Writer(Type::kRefuse, version).Rest(reason).Finish());
  };
  if (version != wire::kProtocolVersion) {
    refuse("the worker speaks fiber protocol version " + std::to_string(version) +
           " but this master speaks version " + std::to_string(wire::kProtocolVersion) +
           "; build master and workers from the same fiber release");
    if (workers_.count(id)) LoseWorker(id, "its protocol version differs");
    return;
  }
  auto it = workers_.find(id);
  if (it == workers_.end() || it->second.connected) {
    return refuse(it == workers_.end() ? "no worker of this pool has that id"
                                       : "a worker with that id is connected already");
  }
  wire::Reader r(body);
  std::uint64_t pid = 0;
  if (!r.U64(&pid) || !r.AtEnd()) return LoseWorker(id, "it sent a malformed HELLO");
  Worker& worker = it->second;
  worker.connected = true;
  worker.pid = static_cast<long>(pid);
  worker.last_heard = Clock::now();
  Send(id, wire::Writer(Type::kWelcome)
               .U32(static_cast<std::uint32_t>(options_.settings.prefetch))
               .Bytes(options_.initializer.function)
               .Bytes(options_.initializer.args)
               .Finish());
  log::Info("worker " + id + " (pid " + std::to_string(pid) + ") connected");
}

void Dispatcher::OnResult(const std::string& id, Worker& worker, const zmq::message_t& body) {
  std::uint32_t credit = 0;
  std::vector<wire::ResultView> results;
  std::string err;
  if (!wire::ReadResults(body, &credit, &results, &err)) return LoseWorker(id, "it sent " + err);
  if (credit == 0 || credit > kMaxCredit)
    return LoseWorker(id, "it asked for a credit of " + std::to_string(credit));
  // Checked whole before any of it counts: a faulty worker's message is
  // dropped with the worker, and its tasks run again elsewhere.
  for (const auto& result : results) {
    const master::Task* task = tasks_.Find(result.id);
    if (!task || task->worker != id)
      return LoseWorker(id, "it sent a result for task " + std::to_string(result.id) +
                                ", which it does not hold");
    if (result.outcomes.size() != task->calls.size())
      return LoseWorker(id, "its result for task " + std::to_string(result.id) + " has " +
                                std::to_string(result.outcomes.size()) + " outcomes for " +
                                std::to_string(task->calls.size()) + " calls");
    for (const auto& outcome : result.outcomes)
      if (outcome.kind > static_cast<std::uint8_t>(Outcome::Kind::kNotRegistered))
        return LoseWorker(id, "its result for task " + std::to_string(result.id) +
                                  " holds an outcome of unknown kind " +
                                  std::to_string(outcome.kind));
  }
  worker.credit = static_cast<int>(credit);
  for (const auto& result : results) {
    std::vector<Outcome> outcomes(result.outcomes.size());
    for (std::size_t i = 0; i < outcomes.size(); ++i) {
      outcomes[i].kind = static_cast<Outcome::Kind>(result.outcomes[i].kind);
      outcomes[i].data.assign(result.outcomes[i].data);
    }
    std::erase(worker.leases, result.id);
    tasks_.Finish(result.id, std::move(outcomes));
  }
  if (worker.state == Worker::State::kRetiring && worker.leases.empty() && !worker.stop_sent)
    SendControl(id, Type::kStop);
  CheckFinished();
}

void Dispatcher::Dispatch() {
  // Ready workers with free credit, idle ones first.
  std::vector<std::pair<const std::string*, Worker*>> free;
  for (auto& [id, w] : workers_)
    if (w.state == Worker::State::kReady && static_cast<int>(w.leases.size()) < w.credit)
      free.emplace_back(&id, &w);
  std::stable_sort(free.begin(), free.end(), [](const auto& a, const auto& b) {
    return a.second->leases.size() < b.second->leases.size();
  });
  // Deal pending tasks one per worker per pass, so a round of tasks spreads
  // over idle workers before any queues behind a busy one; each worker then
  // gets its share in one message, of at most about kMaxTaskBytes (big
  // arguments wait for results to come back rather than pile up at once).
  std::vector<std::optional<wire::Writer>> messages(free.size());
  bool dealt = true;
  while (tasks_.HasPending() && dealt) {
    dealt = false;
    for (std::size_t i = 0; i < free.size() && tasks_.HasPending(); ++i) {
      auto& [id, w] = free[i];
      if (static_cast<int>(w->leases.size()) >= w->credit) continue;
      if (messages[i] && messages[i]->size() >= kMaxTaskBytes) continue;
      const std::uint64_t task_id = tasks_.LeaseNext(*id);
      w->leases.push_back(task_id);
      const master::Task& task = *tasks_.Find(task_id);
      if (!messages[i]) messages[i].emplace(Type::kTask);
      wire::AppendTask(*messages[i], task_id, task.function, task.calls);
      dealt = true;
    }
  }
  std::vector<std::string> unreachable;
  for (std::size_t i = 0; i < free.size(); ++i) {
    if (!messages[i]) continue;
    auto& [id, w] = free[i];
    if (Send(*id, messages[i]->Finish())) {
      w->last_sent = Clock::now();
    } else {
      unreachable.push_back(*id);
    }
  }
  // Their tasks go back to the queue, and to the workers still there.
  for (const auto& id : unreachable) LoseWorker(id, "it is no longer connected");
}

bool Dispatcher::Send(const std::string& id, zmq::message_t message) {
  try {
    zmq::message_t to(id.data(), id.size());
    return router_.send(to, zmq::send_flags::sndmore | zmq::send_flags::dontwait) &&
           router_.send(message, zmq::send_flags::dontwait);
  } catch (const zmq::error_t& e) {
    log::Info("cannot send to worker " + id + ": " + e.what());
    return false;
  }
}

bool Dispatcher::SendControl(const std::string& id, Type type) {
  const bool sent = Send(id, wire::Control(type));
  auto it = workers_.find(id);
  if (it == workers_.end()) return sent;
  it->second.last_sent = Clock::now();
  if (type == Type::kStop) {
    it->second.stop_sent = true;
    it->second.stop_sent_at = Clock::now();
  }
  return sent;
}

int Dispatcher::LiveWorkers() const {
  int n = 0;
  for (const auto& [id, w] : workers_)
    if (w.state != Worker::State::kRetiring) ++n;
  return n;
}

void Dispatcher::StartWorkers() {
  if (closing_ || !broken_.empty()) return;
  while (LiveWorkers() < target_) {
    const std::string id = "w" + std::to_string(next_worker_++);
    backend::Launch launch;
    launch.worker_id = id;
    launch.env = {
        {"FIBER_ROLE", "worker"},
        {"FIBER_MASTER", endpoint_},
        {"FIBER_WORKER_ID", id},
        {"FIBER_SERVER_KEY", options_.credentials.server_public},
        {"FIBER_CLIENT_KEY", options_.credentials.client_secret},
        {"FIBER_HEARTBEAT_INTERVAL", config::FormatSeconds(options_.settings.heartbeat_interval)},
        {"FIBER_HEARTBEAT_TIMEOUT", config::FormatSeconds(options_.settings.heartbeat_timeout)},
    };
    std::string err;
    if (!backend_->Start(launch, &err)) {
      Break(Outcome::Kind::kWorkerLost, "the " + std::string(backend_->name()) +
                                            " backend cannot start workers: " + err);
      return;
    }
    Worker& w = workers_[id];
    w.started = w.last_heard = w.last_sent = Clock::now();
  }
}

void Dispatcher::Retire() {
  // Shrink: retire workers still starting first, then the least loaded.
  int excess = LiveWorkers() - target_;
  while (excess > 0) {
    Worker* pick = nullptr;
    std::string pick_id;
    for (auto& [id, w] : workers_) {
      if (w.state == Worker::State::kRetiring) continue;
      if (!pick || (pick->state == Worker::State::kReady && w.state != Worker::State::kReady) ||
          (pick->state == w.state && w.leases.size() < pick->leases.size())) {
        pick = &w;
        pick_id = id;
      }
    }
    if (!pick) return;
    pick->state = Worker::State::kRetiring;
    --excess;
    if (!pick->connected) {
      backend_->Kill(pick_id);
    } else if (pick->leases.empty()) {
      SendControl(pick_id, Type::kStop);
    }
  }
}

void Dispatcher::LoseWorker(const std::string& id, const std::string& why) {
  auto it = workers_.find(id);
  if (it == workers_.end()) return;
  Worker worker = std::move(it->second);
  workers_.erase(it);
  backend_->Kill(id);
  const bool retiring = worker.state == Worker::State::kRetiring;
  if (!worker.connected && !terminating_ && !retiring) ++start_failures_;
  if (!terminating_ && !(retiring && worker.leases.empty()))
    log::Warning("worker " + id + " lost: " + why);
  for (std::uint64_t task_id : worker.leases) {
    master::Task* task = tasks_.Find(task_id);
    if (!task) continue;
    if (++task->losses > options_.max_task_retries) {
      tasks_.Fail(task_id, Outcome::Kind::kWorkerLost,
                  "task '" + task->function + "' was lost with its worker " +
                      std::to_string(task->losses) + " times (the last, " + id + ": " + why +
                      ")");
    } else {
      tasks_.Requeue(task_id);
    }
  }
  if (start_failures_ > std::max(3, 2 * target_)) {
    Break(Outcome::Kind::kWorkerLost,
          std::to_string(start_failures_) +
              " workers in a row ended before connecting to the master; the last: " + why);
    return;
  }
  StartWorkers();
  Dispatch();
  CheckFinished();
}

void Dispatcher::Break(Outcome::Kind kind, const std::string& why) {
  if (!broken_.empty()) return;
  broken_ = why;
  broken_kind_ = kind;
  log::Error(kind == Outcome::Kind::kRemoteError ? why.substr(why.find('\n') + 1) : why);
  tasks_.FailAll(kind, why);
  for (auto& [id, w] : workers_) {
    w.state = Worker::State::kRetiring;
    backend_->Kill(id);
  }
  CheckFinished();
}

void Dispatcher::Tick() {
  const auto now = Clock::now();
  for (const backend::Exit& exit : backend_->Poll()) {
    auto it = workers_.find(exit.worker_id);
    if (it == workers_.end()) continue;
    if (it->second.stop_sent && it->second.leases.empty()) {
      workers_.erase(it);  // retired as asked
      continue;
    }
    LoseWorker(exit.worker_id, "its process ended (" + exit.how + ")");
  }
  std::vector<std::pair<std::string, std::string>> lost;
  for (auto& [id, w] : workers_) {
    if (!w.connected) {
      if (now - w.started > options_.settings.start_timeout)
        lost.emplace_back(id, "it did not connect within " +
                                  Seconds(options_.settings.start_timeout));
      continue;
    }
    const bool silent = now - w.last_heard > options_.settings.heartbeat_timeout;
    if (silent && w.leases.empty()) {
      lost.emplace_back(id, "no heartbeat for " + Seconds(options_.settings.heartbeat_timeout));
      continue;
    }
    if (w.stop_sent && now - w.stop_sent_at > options_.settings.heartbeat_timeout) {
      backend_->Kill(id);  // asked to stop but still running: end it
      continue;
    }
    // A worker running a long task is silent but its connection lives on
    // ZeroMQ heartbeats; once they stop, the connection closes and a send
    // to it fails.
    if (now - w.last_sent >= options_.settings.heartbeat_interval &&
        !SendControl(id, Type::kHeartbeat))
      lost.emplace_back(id, "its connection closed (no ZeroMQ heartbeat for " +
                                Seconds(options_.settings.heartbeat_timeout) + ")");
  }
  for (const auto& [id, why] : lost) LoseWorker(id, why);
  CheckFinished();
}

void Dispatcher::CheckFinished() {
  if (!closing_) return;
  if (tasks_.size() == 0) {
    for (auto& [id, w] : workers_) {
      w.state = Worker::State::kRetiring;
      if (!w.connected) {
        backend_->Kill(id);
      } else if (!w.stop_sent) {
        SendControl(id, Type::kStop);
      }
    }
  }
  if (!workers_.empty() || tasks_.size() != 0) return;
  std::lock_guard<std::mutex> lock(mu_);
  finished_ = true;
  finished_cv_.notify_all();
}

}  // namespace fiber::detail
