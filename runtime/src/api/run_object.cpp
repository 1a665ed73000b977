#include "api/run_object.hpp"

#include <algorithm>
#include <cstring>

#include "client/run_client.hpp"
#include "fiber/errors.hpp"

namespace fiber::detail {

using wire::Op;
using wire::Status;

client::RunClient& client_for(const RunObjectRef& object, const char* where) {
  client::RunClient& c = client::RunClient::Get();
  if (object.run_id != c.run_id())
    throw Error(std::string(where) + ": this handle belongs to run " + object.run_id +
                ", not to this process's run " + c.run_id() +
                "; a handle works only within the run that made it");
  return c;
}

wire::Request request_for(const RunObjectRef& object, Op op, std::string body,
                          const Timeout& timeout) {
  wire::Request request;
  request.op = op;
  request.object = object.id;
  request.body = std::move(body);
  if (timeout)
    request.timeout_ms = static_cast<std::uint32_t>(std::clamp<std::chrono::milliseconds::rep>(
        timeout->count(), 0, 0xFFFFFFFE));
  return request;
}

wire::Reply checked(wire::Reply reply, const char* where) {
  switch (reply.status) {
    case Status::kOk:
    case Status::kTimeout:
    case Status::kClosed: return reply;
    case Status::kNoSuchObject:
    case Status::kLost:
    case Status::kRaised:
    case Status::kNotRegistered:
    case Status::kRefused: break;
  }
  throw Error(std::string(where) + ": " + reply.body);
}

wire::Reply ask_master(const RunObjectRef& object, Op op, std::string body, const Timeout& timeout,
                       const char* where) {
  client::RunClient& c = client_for(object, where);
  return checked(c.Call(request_for(object, op, std::move(body), timeout)), where);
}

const RunObjectRef& LazyRunObject::Make() {
  std::lock_guard<std::mutex> lock(mu_);
  if (made_.load(std::memory_order_relaxed)) return ref_;
  client::RunClient& c = client::RunClient::Get();
  wire::Request request;
  switch (spec_.kind) {
    case RunObjectSpec::Kind::kQueue:
      request.op = Op::kQueueNew;
      if (spec_.maxsize != 0) request.body = wire::EncodeU64(spec_.maxsize);
      break;
    case RunObjectSpec::Kind::kEvent: request.op = Op::kEventNew; break;
    case RunObjectSpec::Kind::kSemaphore:
      request.op = Op::kSemaphoreNew;
      request.body = wire::Encode(spec_.semaphore);
      break;
  }
  const wire::Reply reply = c.Call(std::move(request));
  if (reply.status != Status::kOk || reply.body.size() != sizeof ref_.id)
    throw Error("cannot make a shared object of the run: " + reply.body);
  std::memcpy(&ref_.id, reply.body.data(), sizeof ref_.id);
  ref_.run_id = c.run_id();
  ref_.maxsize = spec_.maxsize;
  made_.store(true, std::memory_order_release);
  return ref_;
}

}  // namespace fiber::detail
