#include "master/sync_table.hpp"

#include <algorithm>
#include <utility>

namespace fiber::master {

using wire::Op;
using wire::Status;

bool SyncTable::Serves(Op op) {
  switch (op) {
    case Op::kSemaphoreNew:
    case Op::kSemaphoreAcquire:
    case Op::kSemaphoreRelease:
    case Op::kEventNew:
    case Op::kEventSet:
    case Op::kEventClear:
    case Op::kEventWait: return true;
    default: return false;
  }
}

namespace {

std::string IdBytes(std::uint64_t id) {
  return std::string(reinterpret_cast<const char*>(&id), sizeof id);
}

}  // namespace

bool SyncTable::Charge(const std::string& peer, PeerBudget::Hold* hold, const Answer& answer) {
  std::string err;
  if (budget_->Take(peer, {.objects = 1}, hold, &err)) return true;
  (void)answer(Status::kRefused, "cannot make it: " + err);
  return false;
}

void SyncTable::Handle(const std::string& peer, const wire::Request& request, Answer answer,
                       Clock::time_point now) {
  switch (request.op) {
    case Op::kSemaphoreNew: {
      Semaphore s;
      if (!wire::Decode(request.body, &s.spec)) {
        (void)answer(Status::kNoSuchObject, "a malformed semaphore: its value passes its bound");
        return;
      }
      if (!Charge(peer, &s.hold, answer)) return;
      s.value = s.spec.value;
      semaphores_.emplace(next_id_, std::move(s));
      (void)answer(Status::kOk, IdBytes(next_id_++));
      return;
    }
    case Op::kEventNew: {
      Event e;
      if (!Charge(peer, &e.hold, answer)) return;
      events_.emplace(next_id_, std::move(e));
      (void)answer(Status::kOk, IdBytes(next_id_++));
      return;
    }
    case Op::kSemaphoreAcquire:
    case Op::kSemaphoreRelease: {
      auto it = semaphores_.find(request.object);
      if (it == semaphores_.end()) {
        (void)answer(Status::kNoSuchObject,
                     "the run has no lock or semaphore " + std::to_string(request.object));
        return;
      }
      if (request.op == Op::kSemaphoreRelease) return Release(peer, it->second, answer);
      return Acquire(peer, it->second, request, std::move(answer), now);
    }
    case Op::kEventSet:
    case Op::kEventClear:
    case Op::kEventWait: {
      auto it = events_.find(request.object);
      if (it == events_.end()) {
        (void)answer(Status::kNoSuchObject, "the run has no event " + std::to_string(request.object));
        return;
      }
      Event& e = it->second;
      if (request.op == Op::kEventClear) {
        e.set = false;
      } else if (request.op == Op::kEventSet) {
        e.set = true;
        for (Waiter& w : std::exchange(e.waiters, {})) (void)w.answer(Status::kOk, {});
      } else if (!e.set) {
        return Wait(peer, &e.waiters, request, std::move(answer), now);
      }
      (void)answer(Status::kOk, {});
      return;
    }
    default: (void)answer(Status::kNoSuchObject, "not a lock, semaphore or event request");
  }
}

void SyncTable::Wait(const std::string& peer, std::deque<Waiter>* waiters,
                     const wire::Request& request, Answer answer, Clock::time_point now) {
  // A zero timeout asks only about now.
  if (request.timeout_ms == 0u) {
    (void)answer(Status::kTimeout, {});
    return;
  }
  Waiter w{peer, std::nullopt, std::move(answer)};
  if (request.timeout_ms) w.deadline = now + std::chrono::milliseconds(*request.timeout_ms);
  waiters->push_back(std::move(w));
}

void SyncTable::Acquire(const std::string& peer, Semaphore& s, const wire::Request& request,
                        Answer answer, Clock::time_point now) {
  if (s.value == 0) return Wait(peer, &s.waiters, request, std::move(answer), now);
  // Free permits mean nobody waits (Serve), so this one is next.
  s.waiters.push_back(Waiter{peer, std::nullopt, std::move(answer)});
  Serve(s);
}

void SyncTable::Release(const std::string& peer, Semaphore& s, const Answer& answer) {
  auto mine = s.held.find(peer);
  if (s.spec.owned && mine == s.held.end()) {
    (void)answer(Status::kRefused, "this process does not hold the lock");
    return;
  }
  if (s.value >= s.spec.bound) {
    (void)answer(Status::kRefused, "released more often than acquired (it is bounded at " +
                                       std::to_string(s.spec.bound) + ")");
    return;
  }
  // A permit released for another process is taken off a holder's count,
  // so that holder's death does not release it twice.
  if (mine == s.held.end()) mine = s.held.begin();
  if (mine != s.held.end() && --mine->second == 0) s.held.erase(mine);
  ++s.value;
  (void)answer(Status::kOk, {});
  Serve(s);
}

void SyncTable::Serve(Semaphore& s) {
  while (s.value > 0 && !s.waiters.empty()) {
    Waiter w = std::move(s.waiters.front());
    s.waiters.pop_front();
    // Not delivered (the asker is gone): the permit stays free.
    if (!w.answer(Status::kOk, {})) continue;
    --s.value;
    ++s.held[w.peer];
  }
}

void SyncTable::Tick(Clock::time_point now) {
  auto expire = [now](std::deque<Waiter>& waiters) {
    std::erase_if(waiters, [now](Waiter& w) {
      if (!w.deadline || *w.deadline > now) return false;
      (void)w.answer(Status::kTimeout, {});
      return true;
    });
  };
  for (auto& [id, s] : semaphores_) expire(s.waiters);
  for (auto& [id, e] : events_) expire(e.waiters);
}

std::vector<std::string> SyncTable::Holders() const {
  std::vector<std::string> peers;
  for (const auto& [id, s] : semaphores_)
    for (const auto& [peer, n] : s.held)
      if (!peer.empty()) peers.push_back(peer);
  std::sort(peers.begin(), peers.end());
  peers.erase(std::unique(peers.begin(), peers.end()), peers.end());
  return peers;
}

void SyncTable::ReleaseHeldBy(const std::string& peer) {
  auto of_peer = [&peer](const Waiter& w) { return w.peer == peer; };
  for (auto& [id, s] : semaphores_) {
    std::erase_if(s.waiters, of_peer);
    const auto it = s.held.find(peer);
    if (it == s.held.end()) continue;
    s.value += it->second;
    s.held.erase(it);
    Serve(s);
  }
  for (auto& [id, e] : events_) std::erase_if(e.waiters, of_peer);
}

std::uint32_t SyncTable::HeldBy(std::uint64_t id, const std::string& peer) const {
  const auto s = semaphores_.find(id);
  if (s == semaphores_.end()) return 0;
  const auto it = s->second.held.find(peer);
  return it == s->second.held.end() ? 0 : it->second;
}

}  // namespace fiber::master
