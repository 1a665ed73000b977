// Queue operations as requests to the run's master (master/queue_table.hpp
// holds the queues), from whichever process the handle is used in.
#include "fiber/queue.hpp"

#include <cstring>

#include "client/run_client.hpp"
#include "fiber/errors.hpp"

namespace fiber::detail {

namespace {

using wire::Op;
using wire::Status;

client::RunClient& ClientFor(const QueueRef& q, const char* where) {
  client::RunClient& c = client::RunClient::Get();
  if (q.run_id != c.run_id())
    throw Error(std::string(where) + ": this queue belongs to run " + q.run_id +
                ", not to this process's run " + c.run_id() +
                "; a handle works only within the run that made it");
  return c;
}

wire::Reply Ask(const QueueRef& q, Op op, std::string body, const Timeout& timeout,
                const char* where) {
  wire::Request request;
  request.op = op;
  request.object = q.id;
  request.body = std::move(body);
  if (timeout)
    request.timeout_ms = static_cast<std::uint32_t>(
        std::min<std::chrono::milliseconds::rep>(std::max<std::chrono::milliseconds::rep>(timeout->count(), 0),
                                                 0xFFFFFFFE));
  wire::Reply reply = ClientFor(q, where).Call(std::move(request));
  switch (reply.status) {
    case Status::kOk: return reply;
    case Status::kTimeout: throw TimeoutError(std::string(where) + ": nothing arrived within the timeout");
    case Status::kClosed: throw Closed(std::string(where) + ": the queue is closed");
    case Status::kNoSuchObject:
    case Status::kLost:
    case Status::kRaised:
    case Status::kNotRegistered:
    case Status::kRefused: break;
  }
  throw Error(std::string(where) + ": " + reply.body);
}

}  // namespace

const QueueRef& LazyQueue::ref() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!made_) {
    client::RunClient& c = client::RunClient::Get();
    wire::Request request;
    request.op = Op::kQueueNew;
    const wire::Reply reply = c.Call(std::move(request));
    if (reply.status != Status::kOk || reply.body.size() != sizeof ref_.id)
      throw Error("cannot make a queue: " + reply.body);
    std::memcpy(&ref_.id, reply.body.data(), sizeof ref_.id);
    ref_.run_id = c.run_id();
    made_ = true;
  }
  return ref_;
}

void queue_put(const QueueRef& q, std::string item, const char* where) {
  Ask(q, Op::kQueuePut, std::move(item), std::nullopt, where);
}

std::string queue_get(const QueueRef& q, const Timeout& timeout, const char* where) {
  return std::move(Ask(q, Op::kQueueGet, {}, timeout, where).body);
}

bool queue_poll(const QueueRef& q, const Timeout& timeout, const char* where) {
  try {
    Ask(q, Op::kQueuePoll, {}, timeout, where);
    return true;
  } catch (const TimeoutError&) {
    return false;
  } catch (const Closed&) {
    return true;  // recv would not wait: it would throw Closed
  }
}

bool queue_empty(const QueueRef& q, const char* where) {
  return Ask(q, Op::kQueueEmpty, {}, std::nullopt, where).body == "1";
}

void queue_close(const QueueRef& q, const char* where) {
  Ask(q, Op::kQueueClose, {}, std::nullopt, where);
}

}  // namespace fiber::detail
