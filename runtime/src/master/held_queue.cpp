#include "master/held_queue.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

#include "wire/limits.hpp"

namespace fiber::master {

using wire::Op;
using wire::Status;

namespace {

// How many items a get_many asks for; 0 when its body says none, or is
// malformed.
std::uint32_t ManyAskedFor(const wire::Request& request) {
  std::uint32_t many = 0;
  if (request.body.size() == sizeof many) std::memcpy(&many, request.body.data(), sizeof many);
  return many;
}

// Answers kTimeout to the waits (gets, polls or puts) whose time is up, and
// forgets them. A put's items are not in yet, so one timed out took no room.
template <class Waits>
void AnswerTimedOut(Waits& waits, HeldQueue::Clock::time_point now) {
  std::erase_if(waits, [now](auto& w) {
    if (!w.deadline || *w.deadline > now) return false;
    (void)w.answer(Status::kTimeout, {});
    return true;
  });
}

}  // namespace

bool HeldQueue::TakeNow(const wire::Request& request, Taken* taken) {
  const std::uint32_t many = request.op == Op::kQueueGet ? 1 : ManyAskedFor(request);
  if (many == 0) return false;  // Wait says why
  if (items_.empty() || !waiters_.empty() || !putters_.empty() || closed_) return false;
  *taken = TakeFirst(BatchOf(many));
  return true;
}

HeldQueue::Taken HeldQueue::TakeFirst(std::size_t n) {
  Taken taken;
  taken.items.reserve(n);
  items_.Take(n, &taken.items, &taken.blocks);
  return taken;
}

std::size_t HeldQueue::BatchOf(std::uint32_t many) const {
  std::size_t n = 1, bytes = items_[0].size();
  while (n < std::min<std::size_t>(many, items_.size()) &&
         bytes + items_[n].size() + 64 * (n + 1) < wire::kMaxMessageBytes / 2)
    bytes += items_[n++].size();
  return n;
}

void HeldQueue::Put(HeldItems items, const wire::Request& request, Answer answer,
                    Clock::time_point now) {
  if (closed_) {
    (void)answer(Status::kClosed, {});
    return;
  }
  Putter putter{std::move(items), std::nullopt, std::move(answer)};
  // Behind those waiting for room, or into the queue by Serve.
  if (request.timeout_ms) putter.deadline = now + std::chrono::milliseconds(*request.timeout_ms);
  if (request.timeout_ms == 0u && (full() || !putters_.empty())) {
    (void)putter.answer(Status::kTimeout, {});
    return;
  }
  putters_.push_back(std::move(putter));
}

void HeldQueue::Wait(const std::string& peer, bool take, const wire::Request& request,
                     Answer answer, Deliver deliver, Clock::time_point now) {
  // A zero timeout asks only about now.
  if (request.timeout_ms == 0u && items_.empty() && !closed_) {
    (void)answer(Status::kTimeout, {});
    return;
  }
  std::uint32_t many = 0;
  if (request.op == Op::kQueueGetMany) {
    many = ManyAskedFor(request);
    if (many == 0) {
      (void)answer(Status::kNoSuchObject, "get_many asks for at least one item");
      return;
    }
  }
  Waiter w{peer, take, many, std::nullopt, std::move(answer), std::move(deliver)};
  if (request.timeout_ms) w.deadline = now + std::chrono::milliseconds(*request.timeout_ms);
  waiters_.push_back(std::move(w));
}

bool HeldQueue::Serve() {
  for (bool moved = true; moved;) {
    moved = false;
    // Waiting puts go in, first-come, while there is room.
    while (!putters_.empty() && !full() && !closed_) {
      Putter& p = putters_.front();
      p.items.MoveTo(&items_, maxsize_ == 0 ? p.items.size() : maxsize_ - items_.size());
      moved = true;
      if (p.items.empty()) {
        (void)p.answer(Status::kOk, {});
        putters_.pop_front();
      }
    }
    while (!waiters_.empty() && (!items_.empty() || closed_)) {
      Waiter w = std::move(waiters_.front());
      waiters_.pop_front();
      if (items_.empty()) {
        (void)w.answer(Status::kClosed, {});
      } else if (!w.take) {
        (void)w.answer(Status::kOk, {});
      } else if (w.deliver) {
        w.deliver(TakeFirst(w.many == 0 ? 1 : BatchOf(w.many)));
        moved = true;
      } else if (w.many == 0) {
        // Not delivered: the item stays first for the next in line.
        if (w.answer(Status::kOk, items_.front())) {
          items_.Drop(1);
          moved = true;
        }
      } else {
        const std::size_t n = BatchOf(w.many);
        std::vector<std::string_view> batch;
        batch.reserve(n);
        for (std::size_t i = 0; i < n; ++i) batch.push_back(items_[i]);
        if (w.answer(Status::kOk, wire::EncodeList(batch))) {
          items_.Drop(n);
          moved = true;
        }
      }
    }
  }
  if (closed_) {
    for (Putter& p : putters_) (void)p.answer(Status::kClosed, {});
    putters_.clear();
  }
  // Nobody can put into it, and nothing is left to get.
  return closed_ && items_.empty() && waiters_.empty();
}

void HeldQueue::Tick(Clock::time_point now) {
  AnswerTimedOut(waiters_, now);
  AnswerTimedOut(putters_, now);
}

void HeldQueue::DropWaitersOf(const std::string& peer) {
  std::erase_if(waiters_, [&](const Waiter& w) { return w.peer == peer; });
}

}  // namespace fiber::master
