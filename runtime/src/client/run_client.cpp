#include "client/run_client.hpp"

#include <atomic>
#include <future>
#include <memory>

#include "api/init_state.hpp"
#include "client/manager_links.hpp"
#include "client/remote_client.hpp"
#include "fiber/errors.hpp"
#include "master/run.hpp"
#include "os/mutex.hpp"
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
  static os::Mutex mu;
  static std::unique_ptr<RunClient> client FIBER_GUARDED_BY(mu);
  os::MutexLock lock(mu);
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
