#include "master/queue_table.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

#include "wire/frames.hpp"
#include "wire/limits.hpp"

namespace fiber::master {

using wire::Op;
using wire::Status;

std::size_t QueueTable::items() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::size_t n = 0;
  for (const auto& [id, q] : queues_) n += q.items.size();
  return n;
}

void QueueTable::Handle(const std::string& peer, wire::Request request, Answer answer,
                        Clock::time_point now, Deliver deliver) {
  std::lock_guard<std::mutex> lock(mu_);
  if (request.op == Op::kQueueNew) return Create(peer, request, answer);
  // Taken in first, so that an item file sent to a queue gone is let go.
  HeldItems items;
  const bool put = request.op == Op::kQueuePut || request.op == Op::kQueuePutMany ||
                   request.op == Op::kQueuePutFile || request.op == Op::kQueuePutManyFile;
  if (put && !BlockOf(peer, request, answer, &items)) return;
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
    case Op::kQueuePutFile:
    case Op::kQueuePutManyFile:
    case Op::kQueuePutMany: Put(q, std::move(items), request, std::move(answer), now); return Serve(it);
    case Op::kQueueGet:
    case Op::kQueueGetMany:
      Wait(peer, q, true, request, std::move(answer), std::move(deliver), now);
      return Serve(it);
    case Op::kQueuePoll: Wait(peer, q, false, request, std::move(answer), nullptr, now); return Serve(it);
    case Op::kQueueEmpty: (void)answer(Status::kOk, q.items.empty() ? "1" : "0"); return;
    case Op::kQueueSize: (void)answer(Status::kOk, wire::EncodeU64(q.items.size())); return;
    case Op::kQueueClose:
      q.closed = true;
      (void)answer(Status::kOk, {});
      return Serve(it);
    default: break;
  }
  (void)answer(Status::kNoSuchObject, "not a queue request");
}

bool QueueTable::TakeNow(const wire::Request& request, Taken* taken) {
  if (request.op != Op::kQueueGet && request.op != Op::kQueueGetMany) return false;
  std::uint32_t many = 1;
  if (request.op == Op::kQueueGetMany) {
    if (request.body.size() != sizeof many) return false;  // Handle says why
    std::memcpy(&many, request.body.data(), sizeof many);
    if (many == 0) return false;
  }
  std::lock_guard<std::mutex> lock(mu_);
  auto it = queues_.find(request.object);
  if (it == queues_.end()) return false;
  Queue& q = it->second;
  if (q.items.empty() || !q.waiters.empty() || !q.putters.empty() || q.closed) return false;
  *taken = TakeFirst(q, request.op == Op::kQueueGet ? 1 : BatchOf(q, many));
  return true;
}

QueueTable::Taken QueueTable::TakeFirst(Queue& q, std::size_t n) {
  Taken taken;
  taken.items.reserve(n);
  q.items.Take(n, &taken.items, &taken.blocks);
  return taken;
}

std::size_t QueueTable::BatchOf(const Queue& q, std::uint32_t many) {
  std::size_t n = 1, bytes = q.items[0].size();
  while (n < std::min<std::size_t>(many, q.items.size()) &&
         bytes + q.items[n].size() + 64 * (n + 1) < wire::kMaxMessageBytes / 2)
    bytes += q.items[n++].size();
  return n;
}

void QueueTable::Create(const std::string& peer, const wire::Request& request,
                        const Answer& answer) {
  std::uint64_t maxsize = 0;
  if (!request.body.empty() && !wire::DecodeU64(request.body, &maxsize)) {
    (void)answer(Status::kNoSuchObject, "a malformed queue maxsize");
    return;
  }
  PeerBudget::Hold hold;
  std::string err;
  if (!budget_->Take(peer, {.objects = 1}, &hold, &err)) {
    (void)answer(Status::kRefused, "cannot make a queue: " + err);
    return;
  }
  const std::uint64_t id = next_id_++;
  Queue& q = queues_[id];
  q.hold = std::move(hold);
  q.maxsize = maxsize;
  (void)answer(Status::kOk, std::string(reinterpret_cast<const char*>(&id), sizeof id));
}

// Closed and empty for good: nobody could have put or waited since.
void QueueTable::AnswerFreed(const wire::Request& request, const Answer& answer) {
  switch (request.op) {
    case Op::kQueueEmpty: (void)answer(Status::kOk, "1"); return;
    case Op::kQueueSize: (void)answer(Status::kOk, wire::EncodeU64(0)); return;
    case Op::kQueueClose: (void)answer(Status::kOk, {}); return;
    default: (void)answer(Status::kClosed, {}); return;
  }
}

bool QueueTable::BlockOf(const std::string& peer, wire::Request& request, const Answer& answer,
                         HeldItems* items) {
  auto block = std::make_shared<Block>();
  std::string err;
  std::string_view all;
  const bool file = request.op == Op::kQueuePutFile || request.op == Op::kQueuePutManyFile;
  if (file) {
    if (!item_files_) err = "this run's master takes no item files";
    if (!err.empty() || !item_files_->Map(peer, request.body, &block->mapped, &err)) {
      (void)answer(Status::kRefused, err);
      return false;
    }
    all = block->mapped.bytes();
  } else {
    block->body = std::move(request.body);
    all = block->body;
  }
  // Each item costs peer kHeldOverheadBytes, so views are made for no
  // more items than what it has left pays for: a list of many empty ones
  // is measured instead (on this refusal's path only) and refused whole.
  thread_local std::vector<std::string_view> bytes;  // reused: a batch may hold thousands
  bytes.clear();
  wire::ListShape shape;
  bool measured = false;
  const bool one = request.op == Op::kQueuePut || request.op == Op::kQueuePutFile;
  if (one) {
    bytes.push_back(all);
  } else if (!wire::DecodeList(all, &bytes, budget_->BytesLeft(peer) / wire::kHeldOverheadBytes)) {
    if (!wire::MeasureList(all, &shape)) {
      (void)answer(Status::kNoSuchObject, "a malformed list of items");
      return false;
    }
    measured = true;
    bytes.clear();
  }
  if (!measured)
    for (std::string_view b : bytes) {
      ++shape.items;
      shape.bytes += b.size();
      shape.largest = std::max(shape.largest, b.size());
    }
  // A get from any process but the master would bring it in one message.
  err = wire::MessageSizeFault(shape.largest);
  if (!err.empty()) {
    (void)answer(Status::kRefused, "cannot hold " + err);
    return false;
  }
  const PeerBudget::Usage cost{.bytes = shape.bytes + shape.items * wire::kHeldOverheadBytes,
                               .mappings = file ? 1u : 0u};
  if (!budget_->Take(peer, cost, &block->hold, &err)) {
    (void)answer(Status::kRefused, err);
    return false;
  }
  if (measured) (void)wire::DecodeList(all, &bytes);  // room came since: another thread let items go
  items->Append(std::move(block), bytes);
  return true;
}

void QueueTable::Put(Queue& q, HeldItems items, const wire::Request& request,
                     Answer answer, Clock::time_point now) {
  if (q.closed) {
    (void)answer(Status::kClosed, {});
    return;
  }
  Putter putter{std::move(items), std::nullopt, std::move(answer)};
  // Behind those waiting for room, or into the queue by Serve.
  if (request.timeout_ms) putter.deadline = now + std::chrono::milliseconds(*request.timeout_ms);
  if (request.timeout_ms == 0u && (q.full() || !q.putters.empty())) {
    (void)putter.answer(Status::kTimeout, {});
    return;
  }
  q.putters.push_back(std::move(putter));
}

void QueueTable::Wait(const std::string& peer, Queue& q, bool take, const wire::Request& request,
                      Answer answer, Deliver deliver, Clock::time_point now) {
  // A zero timeout asks only about now.
  if (request.timeout_ms == 0u && q.items.empty() && !q.closed) {
    (void)answer(Status::kTimeout, {});
    return;
  }
  std::uint32_t many = 0;
  if (request.op == Op::kQueueGetMany) {
    if (request.body.size() != sizeof(std::uint32_t) ||
        (std::memcpy(&many, request.body.data(), sizeof many), many == 0)) {
      (void)answer(Status::kNoSuchObject, "get_many asks for at least one item");
      return;
    }
  }
  Waiter w{peer, take, many, std::nullopt, std::move(answer), std::move(deliver)};
  if (request.timeout_ms) w.deadline = now + std::chrono::milliseconds(*request.timeout_ms);
  q.waiters.push_back(std::move(w));
}

void QueueTable::Serve(Queues::iterator it) {
  Queue& q = it->second;
  for (bool moved = true; moved;) {
    moved = false;
    // Waiting puts go in, first-come, while there is room.
    while (!q.putters.empty() && !q.full() && !q.closed) {
      Putter& p = q.putters.front();
      p.items.MoveTo(&q.items, q.maxsize == 0 ? p.items.size() : q.maxsize - q.items.size());
      moved = true;
      if (p.items.empty()) {
        (void)p.answer(Status::kOk, {});
        q.putters.pop_front();
      }
    }
    while (!q.waiters.empty() && (!q.items.empty() || q.closed)) {
      Waiter w = std::move(q.waiters.front());
      q.waiters.pop_front();
      if (q.items.empty()) {
        (void)w.answer(Status::kClosed, {});
      } else if (!w.take) {
        (void)w.answer(Status::kOk, {});
      } else if (w.deliver) {
        w.deliver(TakeFirst(q, w.many == 0 ? 1 : BatchOf(q, w.many)));
        moved = true;
      } else if (w.many == 0) {
        // Not delivered: the item stays first for the next in line.
        if (w.answer(Status::kOk, q.items.front())) {
          q.items.Drop(1);
          moved = true;
        }
      } else {
        const std::size_t n = BatchOf(q, w.many);
        std::vector<std::string_view> batch;
        batch.reserve(n);
        for (std::size_t i = 0; i < n; ++i) batch.push_back(q.items[i]);
        if (w.answer(Status::kOk, wire::EncodeList(batch))) {
          q.items.Drop(n);
          moved = true;
        }
      }
    }
  }
  if (q.closed) {
    for (Putter& p : q.putters) (void)p.answer(Status::kClosed, {});
    q.putters.clear();
  }
  // Nobody can put into it, and nothing is left to get.
  if (q.closed && q.items.empty() && q.waiters.empty()) queues_.erase(it);
}

namespace {

// Answers kTimeout to the waits (gets, polls or puts) whose time is up, and
// forgets them. A put's items are not in yet, so one timed out took no room.
template <class Waits>
void AnswerTimedOut(Waits& waits, QueueTable::Clock::time_point now) {
  std::erase_if(waits, [now](auto& w) {
    if (!w.deadline || *w.deadline > now) return false;
    (void)w.answer(Status::kTimeout, {});
    return true;
  });
}

}  // namespace

void QueueTable::Tick(Clock::time_point now) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& [id, q] : queues_) {
    AnswerTimedOut(q.waiters, now);
    AnswerTimedOut(q.putters, now);
  }
}

void QueueTable::DropWaitersOf(const std::string& peer) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& [id, q] : queues_)
    std::erase_if(q.waiters, [&](const Waiter& w) { return w.peer == peer; });
}

}  // namespace fiber::master
