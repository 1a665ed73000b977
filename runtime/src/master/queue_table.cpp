#include "master/queue_table.hpp"

namespace fiber::master {

using wire::Op;
using wire::Status;

std::uint64_t QueueTable::Create() {
  const std::uint64_t id = next_id_++;
  queues_[id];
  return id;
}

std::size_t QueueTable::items() const {
  std::size_t n = 0;
  for (const auto& [id, q] : queues_) n += q.items.size();
  return n;
}

void QueueTable::Handle(const wire::Request& request, Answer answer, Clock::time_point now) {
  if (request.op == Op::kQueueNew) {
    const std::uint64_t id = Create();
    (void)answer(Status::kOk, std::string(reinterpret_cast<const char*>(&id), sizeof id));
    return;
  }
  auto it = queues_.find(request.object);
  if (it == queues_.end()) {
    (void)answer(Status::kNoSuchObject,
                 "the run has no queue " + std::to_string(request.object));
    return;
  }
  Queue& q = it->second;
  switch (request.op) {
    case Op::kQueuePut:
      if (q.closed) {
        (void)answer(Status::kClosed, {});
        return;
      }
      Put(q, request.body);
      (void)answer(Status::kOk, {});
      return;
    case Op::kQueueGet: return Wait(q, true, request, std::move(answer), now);
    case Op::kQueuePoll: return Wait(q, false, request, std::move(answer), now);
    case Op::kQueueEmpty: (void)answer(Status::kOk, q.items.empty() ? "1" : "0"); return;
    case Op::kQueueClose:
      q.closed = true;
      (void)answer(Status::kOk, {});
      Serve(q);
      return;
    case Op::kQueueNew:
    case Op::kManagerCall: break;
  }
  (void)answer(Status::kNoSuchObject, "not a queue request");
}

void QueueTable::Put(Queue& q, std::string item) {
  q.items.push_back(std::move(item));
  Serve(q);
}

void QueueTable::Wait(Queue& q, bool take, const wire::Request& request, Answer answer,
                      Clock::time_point now) {
  // A zero timeout asks only about now.
  if (request.timeout_ms == 0u && q.items.empty() && !q.closed) {
    (void)answer(Status::kTimeout, {});
    return;
  }
  Waiter w{take, std::nullopt, std::move(answer)};
  if (request.timeout_ms) w.deadline = now + std::chrono::milliseconds(*request.timeout_ms);
  q.waiters.push_back(std::move(w));
  Serve(q);
}

void QueueTable::Serve(Queue& q) {
  while (!q.waiters.empty() && (!q.items.empty() || q.closed)) {
    Waiter w = std::move(q.waiters.front());
    q.waiters.pop_front();
    if (q.items.empty()) {
      (void)w.answer(Status::kClosed, {});
    } else if (!w.take) {
      (void)w.answer(Status::kOk, {});
    } else {
      std::string item = std::move(q.items.front());
      q.items.pop_front();
      // Not delivered: the item stays first for the next in line.
      if (!w.answer(Status::kOk, item)) q.items.push_front(std::move(item));
    }
  }
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

}  // namespace fiber::master
