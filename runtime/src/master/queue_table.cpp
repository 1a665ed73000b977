#include "master/queue_table.hpp"

#include <algorithm>
#include <vector>

#include "wire/frames.hpp"
#include "wire/limits.hpp"

namespace fiber::master {

using wire::Op;
using wire::Status;

std::size_t QueueTable::items() const {
  os::MutexLock lock(mu_);
  std::size_t n = 0;
  for (const auto& [id, q] : queues_) n += q.size();
  return n;
}

void QueueTable::Handle(const std::string& peer, wire::Request request, Answer answer,
                        Clock::time_point now, Deliver deliver) {
  os::MutexLock lock(mu_);
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
  HeldQueue& q = it->second;
  switch (request.op) {
    case Op::kQueuePut:
    case Op::kQueuePutFile:
    case Op::kQueuePutManyFile:
    case Op::kQueuePutMany: q.Put(std::move(items), request, std::move(answer), now); return Serve(it);
    case Op::kQueueGet:
    case Op::kQueueGetMany:
      q.Wait(peer, true, request, std::move(answer), std::move(deliver), now);
      return Serve(it);
    case Op::kQueuePoll: q.Wait(peer, false, request, std::move(answer), nullptr, now); return Serve(it);
    case Op::kQueueEmpty: (void)answer(Status::kOk, q.empty() ? "1" : "0"); return;
    case Op::kQueueSize: (void)answer(Status::kOk, wire::EncodeU64(q.size())); return;
    case Op::kQueueClose:
      q.Close();
      (void)answer(Status::kOk, {});
      return Serve(it);
    default: break;
  }
  (void)answer(Status::kNoSuchObject, "not a queue request");
}

bool QueueTable::TakeNow(const wire::Request& request, Taken* taken) {
  if (request.op != Op::kQueueGet && request.op != Op::kQueueGetMany) return false;
  os::MutexLock lock(mu_);
  auto it = queues_.find(request.object);
  return it != queues_.end() && it->second.TakeNow(request, taken);
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
  queues_.try_emplace(id, maxsize, std::move(hold));
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

void QueueTable::Serve(Queues::iterator it) {
  if (it->second.Serve()) queues_.erase(it);
}

void QueueTable::Tick(Clock::time_point now) {
  os::MutexLock lock(mu_);
  for (auto& [id, q] : queues_) q.Tick(now);
}

void QueueTable::DropWaitersOf(const std::string& peer) {
  os::MutexLock lock(mu_);
  for (auto& [id, q] : queues_) q.DropWaitersOf(peer);
}

}  // namespace fiber::master
