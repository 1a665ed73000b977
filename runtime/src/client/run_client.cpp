#include "client/run_client.hpp"

#include <algorithm>
#include <atomic>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>
#include <zmq.hpp>

#include "api/init_state.hpp"
#include "client/manager_links.hpp"
#include "diagnostics/log.hpp"
#include "fiber/errors.hpp"
#include "master/run.hpp"
#include "os/background_thread.hpp"
#include "os/inbox.hpp"
#include "wire/credentials.hpp"
#include "wire/frames.hpp"
#include "wire/poll.hpp"
#include "worker/this_worker.hpp"

namespace fiber::client {

namespace {

using wire::Reply;
using wire::Request;
using wire::Status;

// Items the master's own get took, kept where the queue held them.
detail::GotItems Kept(master::QueueTable::Taken taken) {
  auto kept = std::make_shared<master::QueueTable::Taken>(std::move(taken));
  detail::GotItems got{nullptr, std::move(kept->items)};
  got.keep = std::move(kept);
  return got;
}

// In the master: the request goes straight to the dispatcher's I/O thread.
class LocalClient : public RunClient {
 public:
  // Calls in one hop from the master too: the caller's thread sends them
  // on the manager's own endpoint, not through the dispatcher's thread.
  explicit LocalClient(master::Run& run) : run_(run) {
    const worker::Bootstrap b = run.bootstrap();
    MakeLinks(b.client_secret, b.heartbeat_timeout);
  }
  ~LocalClient() override { EndLinks(); }
  const std::string& run_id() const override { return run_.id(); }
  void Send(Request request, std::function<void(Reply)> on_reply) override {
    BeforeSend();
    if (!SendMade([request = std::move(request)]() mutable { return std::move(request); }, on_reply))
      on_reply(Reply{0, Status::kLost, "the run's master has stopped"});
  }
  bool SendMade(std::function<Request()> make, std::function<void(Reply)> on_reply) override {
    master::Dispatcher& d = run_.dispatcher();
    return d.Post([&d, make = std::move(make), on_reply = std::move(on_reply)] {
      Request request = make();
      const std::uint64_t id = request.id;
      d.Handle(std::move(request), [on_reply, id](Status status, std::string_view body) {
        on_reply(Reply{id, status, std::string(body)});
        return true;
      });
    });
  }
  // Items already there are taken on this thread; else the I/O thread
  // gives them when they come. Either way read where the queue held them.
  detail::GotItems Take(Request request, Reply* error) override {
    master::Dispatcher& d = run_.dispatcher();
    master::QueueTable::Taken taken;
    if (d.TakeNow(request, &taken)) return Kept(std::move(taken));
    struct Outcome {
      Reply error;
      master::QueueTable::Taken taken;
    };
    auto promise = std::make_shared<std::promise<Outcome>>();
    auto future = promise->get_future();
    const bool posted = d.Post([&d, request = std::move(request), promise]() mutable {
      d.Handle(
          std::move(request),
          [promise](Status status, std::string_view body) {
            promise->set_value(Outcome{Reply{0, status, std::string(body)}, {}});
            return true;
          },
          [promise](master::QueueTable::Taken taken) {
            promise->set_value(Outcome{Reply{0, Status::kOk, {}}, std::move(taken)});
          });
    });
    if (!posted) {
      *error = Reply{0, Status::kLost, "the run's master has stopped"};
      return {};
    }
    Outcome outcome = future.get();
    if (outcome.error.status != Status::kOk) {
      *error = std::move(outcome.error);
      return {};
    }
    return Kept(std::move(outcome.taken));
  }

 private:
  master::Run& run_;
};

// In a worker: a DEALER to the master, its routing id the worker's id and
// ".client" (a worker's own id belongs to its serve loop's connection).
class RemoteClient : public RunClient {
 public:
  explicit RemoteClient(const worker::Bootstrap& b)
      : run_id_(b.run_id),
        context_(1),
        dealer_(context_, zmq::socket_type::dealer) {
    if (std::string err; !outbox_.Open(&err)) throw Error(err + " for the run's client connection");
    dealer_.set(zmq::sockopt::routing_id, b.worker_id + ".client");
    dealer_.set(zmq::sockopt::linger, 0);  // every request waits for its answer
    wire::LimitFrames(dealer_);
    wire::MakeCurveClient(dealer_, b.client_secret);
    dealer_.connect(b.master);
    thread_ = StartBackgroundThread([this] { Run(); }, [this](const std::string& what) {
      Fail("an internal error on the connection to the run's master (" + what + ")");
    });
    MakeLinks(b.client_secret, b.heartbeat_timeout);
  }
  ~RemoteClient() override {
    EndLinks();
    outbox_.Close("the run's client connection has closed");
    outbox_.Wake();
    thread_.join();
  }

  const std::string& run_id() const override { return run_id_; }

  void Send(Request request, std::function<void(Reply)> on_reply) override {
    BeforeSend();
    request.id = next_id_++;
    Outgoing o{std::move(request), on_reply, nullptr};
    if (std::string why; !outbox_.Post(std::move(o), &why)) on_reply(Reply{0, Status::kLost, why});
  }
  bool SendMade(std::function<Request()> make, std::function<void(Reply)> on_reply) override {
    Request request;
    request.id = next_id_++;
    return outbox_.Post(Outgoing{std::move(request), std::move(on_reply), std::move(make)});
  }

 private:
  struct Outgoing {
    Request request;
    std::function<void(Reply)> on_reply;
    std::function<Request()> make;  // the request, made as it goes
  };

  void Run() {
    for (;;) {
      std::vector<zmq::pollitem_t> items = {{dealer_.handle(), 0, ZMQ_POLLIN, 0},
                                            {nullptr, outbox_.fd(), ZMQ_POLLIN, 0}};
      wire::Poll(items.data(), items.size(), std::chrono::milliseconds(-1));
      if (items[1].revents & ZMQ_POLLIN) {
        std::vector<Outgoing> out = outbox_.Take();
        if (outbox_.closed()) return;  // the client is going
        for (auto& o : out) {
          if (o.make) {
            const std::uint64_t id = o.request.id;
            o.request = o.make();
            o.request.id = id;
          }
          ToMaster(std::move(o));
        }
      }
      if (items[0].revents & ZMQ_POLLIN) ReceiveAll();
    }
  }

  void ToMaster(Outgoing o) {
    pending_[o.request.id] = std::move(o.on_reply);
    zmq::message_t message = wire::Encode(o.request);
    // The master would drop it unanswered.
    if (const std::string fault = wire::MessageSizeFault(message.size()); !fault.empty())
      Answer(Reply{o.request.id, Status::kRefused, "cannot send " + fault});
    else if (!wire::SendMessage(dealer_, {}, std::move(message)))
      Answer(Reply{o.request.id, Status::kLost, "cannot reach the run's master"});
  }

  void ReceiveAll() {
    for (;;) {
      zmq::message_t message;
      std::string err;
      const auto receipt = wire::ReceiveMessage(dealer_, false, nullptr, &message, &err,
                                                zmq::recv_flags::dontwait);
      if (receipt == wire::Receipt::kNone) return;
      Reply reply;
      if (receipt == wire::Receipt::kMalformed || !wire::Decode(message, &reply, &err)) {
        log::Warning("ignored a malformed answer from the master: " + err);
        continue;
      }
      Answer(std::move(reply));
    }
  }

  // The thread has ended: every call waiting, and every later one, fails
  // with why.
  void Fail(const std::string& why) {
    outbox_.Close(why);
    std::vector<Outgoing> out = outbox_.Take();
    log::Error(why);
    for (auto& [id, on_reply] : pending_) on_reply(Reply{id, Status::kLost, why});
    pending_.clear();
    for (auto& o : out) o.on_reply(Reply{o.request.id, Status::kLost, why});
  }

  void Answer(Reply reply) {
    auto it = pending_.find(reply.id);
    if (it == pending_.end()) return;
    auto on_reply = std::move(it->second);
    pending_.erase(it);
    on_reply(std::move(reply));
  }

  std::string run_id_;
  zmq::context_t context_;
  zmq::socket_t dealer_;  // the thread's only
  std::thread thread_;

  // Requests from the program's threads; closed with why once the thread
  // sends no more (it failed, or the client is going).
  os::Inbox<Outgoing> outbox_;
  std::atomic<std::uint64_t> next_id_{1};

  std::map<std::uint64_t, std::function<void(Reply)>> pending_;  // the thread's only
};

}  // namespace

// Items in a reply's body: the one item of a get, the list of a get_many.
detail::GotItems RunClient::Take(Request request, Reply* error) {
  const bool many = request.op == wire::Op::kQueueGetMany;
  Reply reply = Call(std::move(request));
  if (reply.status != Status::kOk) {
    *error = std::move(reply);
    return {};
  }
  auto body = std::make_shared<const std::string>(std::move(reply.body));
  detail::GotItems got;
  if (!many)
    got.items.push_back(*body);
  else if (!wire::DecodeList(*body, &got.items))
    got.items.clear();
  got.keep = std::move(body);
  return got;
}

namespace {
std::atomic<void (*)()> before_send{nullptr};
}  // namespace

void RunClient::SetBeforeSend(void (*hook)()) { before_send.store(hook, std::memory_order_release); }

void RunClient::BeforeSend() {
  if (void (*hook)() = before_send.load(std::memory_order_acquire)) hook();
}

RunClient& RunClient::Get() {
  // Made once: every later call (one per queue put) reads it without a lock.
  static std::atomic<RunClient*> made{nullptr};
  if (RunClient* c = made.load(std::memory_order_acquire)) return *c;
  static std::mutex mu;
  static std::unique_ptr<RunClient> client;
  std::lock_guard<std::mutex> lock(mu);
  if (!client) {
    if (const worker::Bootstrap* b = worker::ThisWorker()) {
      client = std::make_unique<RemoteClient>(*b);
    } else {
      if (!detail::initialized())
        throw ConfigError("call fiber::init(argc, argv) first thing in main, before using a "
                          "Queue, Pipe or Manager");
      client = std::make_unique<LocalClient>(master::Run::Get());
    }
    made.store(client.get(), std::memory_order_release);
  }
  return *client;
}

RunClient::~RunClient() = default;

void RunClient::MakeLinks(const std::string& client_secret, std::chrono::milliseconds heartbeat_timeout) {
  links_ = std::make_unique<ManagerLinks>(client_secret, heartbeat_timeout,
                                          [this](Request request, ManagerLinks::OnReply on_reply) {
                                            Send(std::move(request), std::move(on_reply));
                                          });
}

void RunClient::EndLinks() { links_.reset(); }

void RunClient::SendToManager(const std::string& endpoint, Request request,
                              std::function<void(Reply)> on_reply) {
  if (endpoint.empty() || request.op != wire::Op::kManagerCall || !links_)
    return Send(std::move(request), std::move(on_reply));
  links_->Send(endpoint, std::move(request), std::move(on_reply));
}

void RunClient::FlushManagerCalls() {
  if (links_) links_->Flush();
}

void RunClient::ManagerEnded(std::uint64_t channel) {
  if (links_) links_->Ended(channel);
}

Reply RunClient::Call(Request request) {
  auto promise = std::make_shared<std::promise<Reply>>();
  auto future = promise->get_future();
  Send(std::move(request), [promise](Reply reply) { promise->set_value(std::move(reply)); });
  return future.get();
}

detail::Outcome OutcomeOf(const Reply& reply) {
  using Kind = detail::Outcome::Kind;
  switch (reply.status) {
    case Status::kOk: return {Kind::kValue, reply.body, {}};
    case Status::kRaised: {
      std::string type, message;
      if (!wire::DecodePair(reply.body, &type, &message))
        return {Kind::kWorkerLost, "a malformed answer from the master", {}};
      return {Kind::kRemoteError, message, type};
    }
    case Status::kNotRegistered: return {Kind::kNotRegistered, reply.body, {}};
    case Status::kLost:
    case Status::kTimeout:
    case Status::kClosed:
    case Status::kNoSuchObject:
    case Status::kRefused: break;
  }
  return {Kind::kWorkerLost, reply.body, {}};
}

}  // namespace fiber::client
