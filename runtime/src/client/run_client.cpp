#include "client/run_client.hpp"

#include <atomic>
#include <future>
#include <memory>

#include "client/manager_links.hpp"
#include "fiber/errors.hpp"
#include "os/mutex.hpp"

namespace fiber::client {

namespace {

using wire::Reply;
using wire::Request;
using wire::Status;

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

namespace {
std::atomic<RunClient::Maker> maker{nullptr};
}  // namespace

void RunClient::SetMaker(Maker make) { maker.store(make, std::memory_order_release); }

RunClient& RunClient::Get() {
  // Made once: every later call (one per queue put) reads it without a lock.
  static std::atomic<RunClient*> made{nullptr};
  if (RunClient* c = made.load(std::memory_order_acquire)) return *c;
  static os::Mutex mu;
  static std::unique_ptr<RunClient> client FIBER_GUARDED_BY(mu);
  os::MutexLock lock(mu);
  if (!client) {
    const Maker make = maker.load(std::memory_order_acquire);
    if (!make)
      throw ConfigError("call fiber::init(argc, argv) first thing in main, before using a "
                        "Queue, Pipe or Manager");
    client = make();
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
