#include "master/dispatcher.hpp"

#include <algorithm>
#include <utility>

#include "os/background_thread.hpp"
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
                [this](const std::string& id) { return pools_.ConnectedOf(id) != nullptr; }, limits),
      connections_(pools_, backlog, settings_.heartbeat_interval, settings_.heartbeat_timeout) {}

Dispatcher::~Dispatcher() {
  inbox_.Close("the run's master has stopped");
  if (thread_.joinable()) {
    inbox_.Wake();
    thread_.join();
  }
  report_.WriteFinal(settings_.run_dir);  // the I/O thread gone, the numbers are final
  while (!pools_.empty()) (void)pools_.Remove(pools_.all().begin()->first);  // each kills its workers
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
          (void)Post([this, accepted] { connections_.Opened(accepted, Clock::now()); });
        },
        [this](int fd) { (void)Post([this, fd] { connections_.Closed(fd, Clock::now()); }); });
    router_.bind(address);
    endpoint_ = router_.get(zmq::sockopt::last_endpoint);
  } catch (const zmq::error_t& e) {
    *err = "cannot listen on " + address + ": " + e.what();
    return false;
  }
  if (!report_.Serve(context_, settings_, err)) return false;
  thread_ = StartBackgroundThread(
      [this] {
        Loop();
        RunPosted();  // work posted before the stop still runs
      },
      [this](const std::string& what) { FailRun("an internal error on the run's I/O thread (" + what + ")"); });
  return true;
}

void Dispatcher::RemovePool(wire::Channel channel) {
  if (const std::unique_ptr<PoolService> pool = pools_.Remove(channel))
    report_.PoolGone(channel, *pool, Clock::now());
}

bool Dispatcher::Post(std::function<void()> fn) { return inbox_.Post(std::move(fn)); }

bool Dispatcher::running() { return !inbox_.closed(); }

void Dispatcher::RunPosted() {
  for (auto& fn : inbox_.Take()) fn();
}

void Dispatcher::AddPool(std::unique_ptr<PoolService> pool) {
  PoolService& p = *pool;
  pools_.Add(std::move(pool));
  p.Start(Clock::now());
}

bool Dispatcher::Send(const std::string& worker_id, zmq::message_t message) {
  const std::size_t bytes = message.size();
  if (!wire::SendMessage(router_, worker_id, std::move(message))) return false;
  connections_.Sent(worker_id, bytes);
  return true;
}

// Whatever it was (an engine's or API server's answer fiber did not expect,
// memory running out), it ends the run as one error its pools fail with,
// not as std::terminate ending the program.
void Dispatcher::FailRun(const std::string& why) {
  inbox_.Close(why);  // no more posts; waiters on running() stop waiting
  if (pools_.empty()) log::Error(why);
  try {
    for (const auto& [channel, pool] : pools_.all()) pool->Fail(why, Clock::now());
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
    const std::size_t count = 2 + report_.PollItems(items + 2);
    const auto wait = std::max<Clock::duration>(Clock::duration::zero(),
                                                last_tick + tick - Clock::now());
    wire::Poll(items, count, std::chrono::duration_cast<std::chrono::milliseconds>(wait));
    if (items[1].revents & ZMQ_POLLIN) RunPosted();
    report_.Answer(items + 2, Clock::now());
    if (items[0].revents & ZMQ_POLLIN) ReceiveBatch();
    if (Clock::now() - last_tick >= tick) {
      last_tick = Clock::now();
      Tick(last_tick);
    }
    connections_.MeasureDue(Clock::now());
    if (inbox_.closed()) break;
  }
}

void Dispatcher::ReceiveBatch() {
  // A bounded batch, so timers and posted work keep their turn.
  for (int i = 0; i < 1024; ++i) {
    std::string id, err;
    zmq::message_t message;
    wire::Arrival arrival;
    const auto receipt = wire::ReceiveMessage(router_, true, &id, &message, &err,
                                              zmq::recv_flags::dontwait, &arrival);
    if (receipt == wire::Receipt::kNone) break;
    connections_.Read(arrival, id, Clock::now());
    if (receipt == wire::Receipt::kMalformed) {
      Drop(id, err);
      continue;
    }
    Route(id, message);
  }
  const auto now = Clock::now();
  for (const auto& [channel, pool] : pools_.all()) pool->Deal(now);
}

void Dispatcher::Tick(Clock::time_point now) {
  for (const auto& [channel, pool] : pools_.all()) pool->Tick(now);
  pools_.Prune();
  requests_.Tick(now);
  connections_.Tick(now);
  report_.Tick(now);
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
    pool = pools_.ConnectedOf(id);
  if (pool && pool->OnMessage(id, header.type, message, Clock::now())) return;
  PoolService* own = pools_.Of(id);
  // A worker the run no longer has (killed while its job holds others:
  // workers_per_job, backend/job_packing.hpp) leaves when refused.
  if (!own) {
    if (dropped_.Allow()) Refuse(id, header.version, kNoSuchWorker);
    return;
  }
  if (dropped_.Allow())
    log::Warning(std::string("dropped ") + wire::TypeName(header.type) + " for pool " +
                 std::to_string(header.channel) + " from '" + id +
                 "', which is not a connected worker of that pool");
  // A worker of one pool that writes to another is faulty or hostile.
  if (own != pool && own->HasConnected(id))
    own->LoseWorker(id, std::string("it sent ") + wire::TypeName(header.type) + " for pool " +
                            std::to_string(header.channel) + ", which it does not belong to",
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
  PoolService* pool = pools_.Of(id);
  if (!pool) return Refuse(id, header.version, kNoSuchWorker);
  wire::Hello hello;
  std::string err;
  if (!wire::Decode(message, &hello, &err)) return pool->LoseWorker(id, "it sent " + err, Clock::now());
  if (!pool->OnHello(id, hello, Clock::now()))
    return Refuse(id, header.version, "a worker with that id is connected already");
  connections_.Hello(zmq_msg_get(message.handle(), ZMQ_SRCFD), id);
}

void Dispatcher::Refuse(const std::string& id, std::uint8_t version, const std::string& reason) {
  log::Warning("refused worker '" + id + "': " + reason);
  (void)Send(id, wire::Encode(wire::Refuse{reason}, version));
}

void Dispatcher::Drop(const std::string& id, const std::string& why) {
  if (dropped_.Allow()) log::Warning("dropped a malformed message from '" + id + "': " + why);
  if (PoolService* pool = pools_.ConnectedOf(id))
    pool->LoseWorker(id, "it sent a malformed message (" + why + ")", Clock::now());
}

}  // namespace fiber::master
