#include "master/request_service.hpp"

#include "wire/limits.hpp"

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
    case Outcome::Kind::kPoolClosed:
    case Outcome::Kind::kTimeout: (void)answer(Status::kLost, outcome.data); return;
  }
}

}  // namespace

void RequestService::Handle(const std::string& routing_id, wire::Request request,
                            QueueTable::Answer answer, Clock::time_point now,
                            QueueTable::Deliver deliver) {
  const std::string peer = PeerBudget::PeerOf(routing_id);
  if (!peer.empty()) {
    if (!connected_(peer)) {
      const std::string why = "no worker of this run with the id '" + peer + "' has said HELLO";
      if (unknown_askers_.Allow()) log::Warning("refused a request from '" + routing_id + "': " + why);
      (void)answer(Status::kRefused, why);
      return;
    }
    // Held as long as the master can still answer: a waiting get, a
    // manager call (and its arguments) until its outcome is in.
    auto hold = std::make_shared<PeerBudget::Hold>();
    std::string err;
    const std::size_t bytes = request.op == wire::Op::kManagerCall
                                  ? request.body.size() + wire::kHeldOverheadBytes
                                  : 0;
    if (!budget_->Take(peer, {.requests = 1, .bytes = bytes}, hold.get(), &err)) {
      (void)answer(Status::kRefused, err);
      return;
    }
    answer = [hold, inner = std::move(answer)](Status status, std::string_view body) {
      return inner(status, body);
    };
  }
  if (request.op == wire::Op::kManagerCall) {
    if (!peer.empty()) ++manager_calls_forwarded_;
    return CallManager(request, std::move(answer), now);
  }
  if (request.op == wire::Op::kManagerHello || request.op == wire::Op::kManagerCalls) {
    (void)answer(Status::kRefused, "MANAGER_HELLO and MANAGER_CALLS are for a manager's own endpoint");
    return;
  }
  if (SyncTable::Serves(request.op)) return sync_.Handle(peer, request, std::move(answer), now);
  if (ShareTable::Serves(request.op)) return shares_.Handle(peer, request, answer);
  queues_.Handle(peer, std::move(request), std::move(answer), now, std::move(deliver));
}

void RequestService::Tick(Clock::time_point now) {
  queues_.Tick(now);
  sync_.Tick(now);
  for (const std::string& peer : budget_->Waiting())
    if (!connected_(peer)) {
      queues_.DropWaitersOf(peer);
      sync_.ReleaseHeldBy(peer);
    }
  // A holder killed: what it held goes to who waits.
  for (const std::string& peer : sync_.Holders())
    if (!connected_(peer)) sync_.ReleaseHeldBy(peer);
  for (const std::string& peer : shares_.Holders())
    if (!connected_(peer)) shares_.ReleaseHeldBy(peer);
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
  // Else a peer could run any task in any pool of the run, Processes' too.
  if (!manager->TakesManagerCall(function)) {
    (void)answer(Status::kRefused, "pool " + std::to_string(request.object) +
                                       " is not a manager that runs " + function);
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
