#include "master/dispatcher.hpp"

#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <future>

#include "log.hpp"
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
    admission_ = std::make_unique<master::Admission>(context_, options_.credentials.client_public);
    router_ = zmq::socket_t(context_, zmq::socket_type::router);
    router_.set(zmq::sockopt::linger, 0);
    router_.set(zmq::sockopt::router_mandatory, 1);
    router_.set(zmq::sockopt::sndhwm, 0);
    router_.set(zmq::sockopt::rcvhwm, 0);
    router_.set(zmq::sockopt::curve_server, 1);
    router_.set(zmq::sockopt::curve_secretkey, options_.credentials.server_secret);
    router_.set(zmq::sockopt::zap_domain, "fiber");
    admission_->Watch(router_, context_);
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
        {admission_->zap().handle(), 0, ZMQ_POLLIN, 0},
        {admission_->monitor().handle(), 0, ZMQ_POLLIN, 0},
        {nullptr, wake_fd_, ZMQ_POLLIN, 0},
    };
    const auto wait = std::max<Clock::duration>(
        Clock::duration::zero(), last_tick_ + tick - Clock::now());
    zmq::poll(items, 4, std::chrono::duration_cast<std::chrono::milliseconds>(wait));
    if (items[3].revents & ZMQ_POLLIN) RunPosted();
    if (items[1].revents & ZMQ_POLLIN) admission_->HandleZap();
    if (items[2].revents & ZMQ_POLLIN) admission_->HandleMonitor();
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
  if (!wire::ParseHeader(message.front(), &header, &err)) {
    if (++bad_messages_ <= 10 || bad_messages_ % 1000 == 0)
      log::Warning("dropped a malformed message from '" + id + "': " + err);
    if (it != workers_.end() && it->second.connected)
      LoseWorker(id, "it sent a malformed message (" + err + ")");
    return;
  }
  message.pop();
  if (header.type == Type::kHello) return OnHello(id, header.version, message);
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
      std::uint32_t credit = 0;
      if (message.size() != 1 || !wire::ReadU32(message.front(), &credit) || credit == 0 ||
          credit > 1024)
        return LoseWorker(id, "it sent a malformed READY");
      worker.credit = static_cast<int>(credit);
      if (worker.state == Worker::State::kStarting) worker.state = Worker::State::kReady;
      start_failures_ = 0;
      Retire();
      return;
    }
    case Type::kResult: return OnResult(id, worker, message);
    case Type::kHeartbeat: return;
    case Type::kInitFailed: {
      const std::string why = message.empty() ? "unknown error" : message.front().to_string();
      const auto nl = why.find('\n');
      broken_kind_ = Outcome::Kind::kRemoteError;
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

void Dispatcher::OnHello(const std::string& id, std::uint8_t version, zmq::multipart_t& message) {
  auto refuse = [&](const std::string& reason) {
    log::Warning("refused worker '" + id + "': " + reason);
    zmq::multipart_t reply;
    reply.addstr(id);
    reply.add(wire::MakeHeader(Type::kRefuse, version));
    reply.addstr(reason);
    Send(id, reply);
  };
  if (version != wire::kProtocolVersion) {
    refuse("the worker speaks fiber protocol version " + std::to_string(version) +
           " but this master speaks version " + std::to_string(wire::kProtocolVersion) +
           "; build master and workers from the same fiber release");
    if (workers_.count(id)) LoseWorker(id, "its protocol version differs");
    return;
  }
  auto it = workers_.find(id);
  std::uint64_t pid = 0;
  if (it == workers_.end() || it->second.connected) {
    return refuse(it == workers_.end() ? "no worker of this pool has that id"
                                       : "a worker with that id is connected already");
  }
  if (message.size() != 1 || !wire::ReadU64(message.front(), &pid))
    return LoseWorker(id, "it sent a malformed HELLO");
  Worker& worker = it->second;
  worker.connected = true;
  worker.pid = static_cast<long>(pid);
  worker.last_heard = Clock::now();
  zmq::multipart_t welcome;
  welcome.addstr(id);
  welcome.add(wire::MakeHeader(Type::kWelcome));
  welcome.add(wire::U32Frame(static_cast<std::uint32_t>(options_.settings.heartbeat_interval.count())));
  welcome.add(wire::U32Frame(static_cast<std::uint32_t>(options_.settings.heartbeat_timeout.count())));
  welcome.add(wire::U32Frame(static_cast<std::uint32_t>(options_.settings.prefetch)));
  welcome.addstr(options_.initializer.function);
  welcome.addstr(options_.initializer.args);
  Send(id, welcome);
  log::Info("worker " + id + " (pid " + std::to_string(pid) + ") connected");
}

void Dispatcher::OnResult(const std::string& id, Worker& worker, zmq::multipart_t& message) {
  std::uint64_t task_id = 0;
  if (message.empty() || !wire::ReadU64(message.front(), &task_id))
    return LoseWorker(id, "it sent a RESULT without a task id");
  message.pop();
  auto lease = std::find(worker.leases.begin(), worker.leases.end(), task_id);
  master::Task* task = tasks_.Find(task_id);
  if (lease == worker.leases.end() || !task)
    return LoseWorker(id, "it sent a result for task " + std::to_string(task_id) +
                              ", which it does not hold");
  if (message.size() != task->calls.size())
    return LoseWorker(id, "its result for task " + std::to_string(task_id) + " has " +
                              std::to_string(message.size()) + " outcomes for " +
                              std::to_string(task->calls.size()) + " calls");
  std::vector<Outcome> outcomes(message.size());
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    const zmq::message_t& frame = message[i];
    const auto* bytes = static_cast<const char*>(frame.data());
    if (frame.size() < 1 || static_cast<std::uint8_t>(bytes[0]) > 3)
      return LoseWorker(id, "its result for task " + std::to_string(task_id) +
                                " holds a malformed outcome");
    outcomes[i].kind = static_cast<Outcome::Kind>(bytes[0]);
    outcomes[i].data.assign(bytes + 1, frame.size() - 1);
  }
  worker.leases.erase(lease);
  tasks_.Finish(task_id, std::move(outcomes));
  if (worker.state == Worker::State::kRetiring && worker.leases.empty() && !worker.stop_sent)
    SendControl(id, Type::kStop);
  CheckFinished();
}

void Dispatcher::Dispatch() {
  while (tasks_.HasPending()) {
    // The ready worker with the most free credit: spreads a round of tasks
    // over idle workers before queueing behind busy ones.
    Worker* best = nullptr;
    const std::string* best_id = nullptr;
    int best_free = 0;
    for (auto& [id, w] : workers_) {
      if (w.state != Worker::State::kReady) continue;
      const int free = w.credit - static_cast<int>(w.leases.size());
      if (free > best_free) {
        best = &w;
        best_id = &id;
        best_free = free;
        if (w.leases.empty()) break;
      }
    }
    if (!best) return;
    const std::uint64_t task_id = tasks_.LeaseNext(*best_id);
    best->leases.push_back(task_id);
    const master::Task& task = *tasks_.Find(task_id);
    zmq::multipart_t message;
    message.addstr(*best_id);
    message.add(wire::MakeHeader(Type::kTask));
    message.add(wire::U64Frame(task_id));
    message.addstr(task.function);
    for (const auto& call : task.calls) message.addstr(call);
    if (!Send(*best_id, message)) {
      LoseWorker(*best_id, "it is no longer connected");
    } else {
      best->last_sent = Clock::now();
    }
  }
}

bool Dispatcher::Send(const std::string& id, zmq::multipart_t& message) {
  try {
    return message.send(router_, ZMQ_DONTWAIT);
  } catch (const zmq::error_t& e) {
    log::Info("cannot send to worker " + id + ": " + e.what());
    return false;
  }
}

void Dispatcher::SendControl(const std::string& id, Type type) {
  zmq::multipart_t message;
  message.addstr(id);
  message.add(wire::MakeHeader(type));
  Send(id, message);
  auto it = workers_.find(id);
  if (it == workers_.end()) return;
  it->second.last_sent = Clock::now();
  if (type == Type::kStop) {
    it->second.stop_sent = true;
    it->second.stop_sent_at = Clock::now();
  }
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
    if (now - w.last_heard > options_.settings.heartbeat_timeout) {
      lost.emplace_back(id, "no heartbeat for " + Seconds(options_.settings.heartbeat_timeout));
      continue;
    }
    if (w.stop_sent && now - w.stop_sent_at > options_.settings.heartbeat_timeout) {
      backend_->Kill(id);  // asked to stop but still running: end it
      continue;
    }
    if (now - w.last_sent >= options_.settings.heartbeat_interval) SendControl(id, Type::kHeartbeat);
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
