// Queue operations as requests to the run's master (master/queue_table.hpp
// holds the queues), from whichever process the handle is used in. Puts on
// an unbounded queue are pipelined (api/put_pipeline.hpp); every other call
// on a queue first waits for their answers and raises the error one met.
#include "fiber/queue.hpp"

#include <algorithm>
#include <limits>

#include "api/put_pipeline.hpp"
#include "api/run_object.hpp"
#include "client/run_client.hpp"
#include "fiber/errors.hpp"

namespace fiber::detail {

namespace {

using wire::Op;
using wire::Status;

// What a reply that is not kOk means to the caller.
void RaiseQueueReply(const wire::Reply& reply, const char* where) {
  if (checked(reply, where).status == Status::kTimeout)
    throw TimeoutError(std::string(where) + ": nothing happened within the timeout");
  throw Closed(std::string(where) + ": the queue is closed");
}

// Raises what a pipelined put on q met, once.
void RaisePutError(const wire::Reply& error, const char* where) {
  if (PutPipeline::None(error)) return;
  RaiseQueueReply(error, (std::string(where) + ": an earlier put").c_str());
}

// The puts sent before come back first: their error is this call's.
void Settle(const QueueRef& q, const char* where) {
  PutPipeline& pipeline = PutPipeline::Get();
  pipeline.Drain();
  RaisePutError(pipeline.TakeError(q.id), where);
}

wire::Reply Ask(const QueueRef& q, Op op, std::string body, const Timeout& timeout,
                const char* where) {
  Settle(q, where);
  wire::Reply reply = ask_master(q, op, std::move(body), timeout, where);
  if (reply.status != Status::kOk) RaiseQueueReply(reply, where);
  return reply;
}

// A get's items, read where they are.
GotItems Take(const QueueRef& q, Op op, std::string body, const Timeout& timeout,
              const char* where) {
  Settle(q, where);
  wire::Reply error{0, Status::kOk, {}};
  GotItems got = client_for(q, where).Take(request_for(q, op, std::move(body), timeout), &error);
  if (error.status != Status::kOk) RaiseQueueReply(error, where);
  if (got.items.empty()) throw Error(std::string(where) + ": a malformed answer from the run's master");
  return got;
}

}  // namespace

void queue_put(const QueueRef& q, std::string item, const Timeout& timeout, const char* where) {
  Settle(q, where);  // before an item file is written: it is sent
  const Op op = PutOp(&item);
  Ask(q, op, std::move(item), timeout, where);
}

void queue_send(const QueueRef& q, const void* item, WriteBytes write, const char* where) {
  if (q.maxsize != 0) {
    std::string bytes;
    write(item, &bytes);
    return queue_put(q, std::move(bytes), std::nullopt, where);
  }
  RaisePutError(PutPipeline::Get().Put(q, item, write, where), where);
}

void queue_put_many(const QueueRef& q, const std::vector<std::string>& items, const char* where) {
  if (items.empty()) return;
  Ask(q, Op::kQueuePutMany, wire::EncodeList({items.begin(), items.end()}), std::nullopt, where);
}

GotItems queue_get(const QueueRef& q, const Timeout& timeout, const char* where) {
  return Take(q, Op::kQueueGet, {}, timeout, where);
}

GotItems queue_get_many(const QueueRef& q, std::size_t n, const Timeout& timeout,
                        const char* where) {
  if (n == 0) throw Error(std::string(where) + ": asks for at least one item, not 0");
  const auto most = static_cast<std::uint32_t>(
      std::min<std::size_t>(n, std::numeric_limits<std::uint32_t>::max()));
  return Take(q, Op::kQueueGetMany, std::string(reinterpret_cast<const char*>(&most), sizeof most),
              timeout, where);
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

std::size_t queue_size(const QueueRef& q, const char* where) {
  std::uint64_t n = 0;
  if (!wire::DecodeU64(Ask(q, Op::kQueueSize, {}, std::nullopt, where).body, &n))
    throw Error(std::string(where) + ": a malformed answer from the run's master");
  return static_cast<std::size_t>(n);
}

void queue_close(const QueueRef& q, const char* where) {
  Ask(q, Op::kQueueClose, {}, std::nullopt, where);
}

void queue_flush(const QueueRef& q, const char* where) { Settle(q, where); }

void queue_flush_all(const char* where) { RaisePutError(PutPipeline::Get().DrainAll(), where); }

}  // namespace fiber::detail
