// Queue operations as requests to the run's master (master/queue_table.hpp
// holds the queues), from whichever process the handle is used in.
#include "fiber/queue.hpp"

#include "api/run_object.hpp"
#include "fiber/errors.hpp"

namespace fiber::detail {

namespace {

using wire::Op;
using wire::Status;

wire::Reply Ask(const QueueRef& q, Op op, std::string body, const Timeout& timeout,
                const char* where) {
  wire::Reply reply = ask_master(q, op, std::move(body), timeout, where);
  if (reply.status == Status::kTimeout)
    throw TimeoutError(std::string(where) + ": nothing arrived within the timeout");
  if (reply.status == Status::kClosed) throw Closed(std::string(where) + ": the queue is closed");
  return reply;
}

}  // namespace

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
