#include "master/queue_table.hpp"

#include "wire/frames.hpp"

namespace fiber::master {

using wire::Op;
using wire::Status;

std::size_t QueueTable::items() const {
  std::size_t n = 0;
  for (const auto& [id, q] : queues_) n += q.items.size();
  return n;
}

void QueueTable::Handle(const std::string& peer, const wire::Request& request, Answer answer,
                        Clock::time_point now) {
  if (request.op == Op::kQueueNew) return Create(peer, answer);
  auto it = queues_.find(request.object);
  if (it == queues_.end()) {
    if (request.object != 0 && request.object < next_id_) return AnswerFreed(request, answer);
    (void)answer(Status::kNoSuchObject,
                 "the run has no queue " + std::to_string(request.object));
    return;
  }
  Queue& q = it->second;
  switch (request.op) {
    case Op::kQueuePut:
      Put(peer, q, request, answer);
      return Serve(it);
    case Op::kQueueGet: Wait(peer, q, true, request, std::move(answer), now); return Serve(it);
    case Op::kQueuePoll: Wait(peer, q, false, request, std::move(answer), now); return Serve(it);
    case Op::kQueueEmpty: (void)answer(Status::kOk, q.items.empty() ? "1" : "0"); return;
    case Op::kQueueClose:
      q.closed = true;
      (void)answer(Status::kOk, {});
      return Serve(it);
    default: break;
  }
  (void)answer(Status::kNoSuchObject, "not a queue request");
}

void QueueTable::Create(const std::string& peer, const Answer& answer) {
  PeerBudget::Hold hold;
  std::string err;
  if (!budget_->Take(peer, {.objects = 1}, &hold, &err)) {
    (void)answer(Status::kRefused, "cannot make a queue: " + err);
    return;
  }
  const std::uint64_t id = next_id_++;
  queues_[id].hold = std::move(hold);
  (void)answer(Status::kOk, std::string(reinterpret_cast<const char*>(&id), sizeof id));
}

// Closed and empty for good: nobody could have put or waited since.
void QueueTable::AnswerFreed(const wire::Request& request, const Answer& answer) {
  switch (request.op) {
    case Op::kQueueEmpty: (void)answer(Status::kOk, "1"); return;
    case Op::kQueueClose: (void)answer(Status::kOk, {}); return;
    default: (void)answer(Status::kClosed, {}); return;
  }
}

void QueueTable::Put(const std::string& peer, Queue& q, const wire::Request& request,
                     const Answer& answer) {
  if (q.closed) {
    (void)answer(Status::kClosed, {});
    return;
  }
  // A get from any process but the master would bring it in one message.
  std::string err = wire::MessageSizeFault(request.body.size());
  if (!err.empty()) {
    (void)answer(Status::kRefused, "cannot hold " + err);
    return;
  }
  Item item{request.body, {}};
  if (!budget_->Take(peer, {.bytes = item.bytes.size()}, &item.hold, &err)) {
    (void)answer(Status::kRefused, err);
    return;
  }
  q.items.push_back(std::move(item));
  (void)answer(Status::kOk, {});
}

void QueueTable::Wait(const std::string& peer, Queue& q, bool take, const wire::Request& request,
                      Answer answer, Clock::time_point now) {
  // A zero timeout asks only about now.
  if (request.timeout_ms == 0u && q.items.empty() && !q.closed) {
    (void)answer(Status::kTimeout, {});
    return;
  }
  Waiter w{peer, take, std::nullopt, std::move(answer)};
  if (request.timeout_ms) w.deadline = now + std::chrono::milliseconds(*request.timeout_ms);
  q.waiters.push_back(std::move(w));
}

void QueueTable::Serve(Queues::iterator it) {
  Queue& q = it->second;
  while (!q.waiters.empty() && (!q.items.empty() || q.closed)) {
    Waiter w = std::move(q.waiters.front());
    q.waiters.pop_front();
    if (q.items.empty()) {
      (void)w.answer(Status::kClosed, {});
    } else if (!w.take) {
      (void)w.answer(Status::kOk, {});
    } else {
      Item item = std::move(q.items.front());
      q.items.pop_front();
      // Not delivered: the item stays first for the next in line.
      if (!w.answer(Status::kOk, item.bytes)) q.items.push_front(std::move(item));
    }
  }
  // Nobody can put into it, and nothing is left to get.
  if (q.closed && q.items.empty() && q.waiters.empty()) queues_.erase(it);
}

void QueueTable::Tick(Clock::time_point now) {
  for (auto& [id, q] : queues_) {
    for (auto it = q.waiters.begin(); it != q.waiters.end();) {
      if (it->deadline && *it->deadline <= now) {
        (void)it->answer(Status::kTimeout, {});
        it = q.waiters.erase(it);
      } else {
        ++it;
      }
    }
  }
}

void QueueTable::DropWaitersOf(const std::string& peer) {
  for (auto& [id, q] : queues_)
    std::erase_if(q.waiters, [&](const Waiter& w) { return w.peer == peer; });
}

}  // namespace fiber::master
