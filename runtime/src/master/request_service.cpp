#include "master/request_service.hpp"

namespace fiber::master {

using detail::Outcome;
using wire::Status;

namespace {

// The one place a manager call's outcome becomes a REPLY (the client turns
// it back in client/run_client.cpp).
void AnswerWith(const Outcome& outcome, const QueueTable::Answer& answer) {
  switch (outcome.kind) {
    case Outcome::Kind::kValue: (void)answer(Status::kOk, outcome.data); return;
    case Outcome::Kind::kRemoteError:
      (void)answer(Status::kRaised, wire::EncodePair(outcome.error_type, outcome.data));
      return;
    case Outcome::Kind::kNotRegistered: (void)answer(Status::kNotRegistered, outcome.data); return;
    case Outcome::Kind::kWorkerLost:
    case Outcome::Kind::kPoolClosed: (void)answer(Status::kLost, outcome.data); return;
  }
}

}  // namespace

void RequestService::Handle(const wire::Request& request, QueueTable::Answer answer,
                            Clock::time_point now) {
  if (request.op == wire::Op::kManagerCall) return CallManager(request, std::move(answer), now);
  queues_.Handle(request, std::move(answer), now);
}

void RequestService::CallManager(const wire::Request& request, QueueTable::Answer answer,
                                 Clock::time_point now) {
  std::string function, args;
  if (!wire::DecodePair(request.body, &function, &args)) {
    (void)answer(Status::kNoSuchObject, "a malformed manager call");
    return;
  }
  PoolService* manager =
      request.object > 0xFFFFFFFF ? nullptr : find_pool_(static_cast<wire::Channel>(request.object));
  if (!manager) {
    (void)answer(Status::kLost, "the manager has shut down");
    return;
  }
  auto batch = std::make_shared<detail::Batch>(1);
  // Weak: the task holds the batch; the hook must not keep it alive.
  batch->on_ready([weak = std::weak_ptr<detail::Batch>(batch), answer = std::move(answer)] {
    if (auto b = weak.lock()) AnswerWith(b->at(0), answer);
  });
  manager->Submit(std::move(function), {std::move(args)}, 1, batch, now);
}

}  // namespace fiber::master
