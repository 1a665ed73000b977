// The master's locks, semaphores and events without sockets or processes:
// who gets a permit and in what order, timeouts, releases that are refused,
// what a peer gone held, and what a worker may make, driven with answers
// that record what they were told and a clock of our own.
#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <vector>

#include "master/sync_table.hpp"
#include "support/told.hpp"

using fiber::master::PeerBudget;
using fiber::master::SyncTable;
using fiber::wire::Op;
using fiber::wire::Request;
using fiber::wire::SemaphoreSpec;
using fiber::wire::Status;

namespace {

const auto t0 = SyncTable::Clock::time_point{};

// A request that waits at most timeout_ms.
Request AskWithin(Op op, std::uint64_t object, std::uint32_t timeout_ms) {
  Request r = Ask(op, object);
  r.timeout_ms = timeout_ms;
  return r;
}

std::uint64_t New(SyncTable& table, Told& who, Op op, std::string body = {}) {
  Request r = Ask(op, 0);
  r.body = std::move(body);
  table.Handle(who.peer, r, who.answer(), t0);
  std::uint64_t id = 0;
  if (who.answers.back().first == Status::kOk && who.answers.back().second.size() == sizeof id)
    std::memcpy(&id, who.answers.back().second.data(), sizeof id);
  return id;
}

std::uint64_t NewSemaphore(SyncTable& table, Told& who, SemaphoreSpec spec) {
  return New(table, who, Op::kSemaphoreNew, fiber::wire::Encode(spec));
}

}  // namespace

TEST_CASE("a lock goes to its waiters in the order they asked, each once it is released") {
  SyncTable table(PeerBudget::Make({}));
  Told master, a("w1"), b("w2");
  const auto lock = NewSemaphore(table, master, {1, 1, true});
  REQUIRE(lock != 0);
  table.Handle(master.peer, Ask(Op::kSemaphoreAcquire, lock), master.answer(), t0);
  table.Handle(a.peer, Ask(Op::kSemaphoreAcquire, lock), a.answer(), t0);
  table.Handle(b.peer, Ask(Op::kSemaphoreAcquire, lock), b.answer(), t0);
  CHECK(master.answers.back().first == Status::kOk);
  CHECK(a.answers.empty());
  table.Handle(master.peer, Ask(Op::kSemaphoreRelease, lock), master.answer(), t0);
  CHECK(a.statuses() == std::vector<Status>{Status::kOk});
  CHECK(b.answers.empty());
  CHECK(table.HeldBy(lock, "w1") == 1);
  // Only its holder may release it.
  table.Handle(b.peer, Ask(Op::kSemaphoreRelease, lock), b.answer(), t0);
  CHECK(b.statuses() == std::vector<Status>{Status::kRefused});
  CHECK(b.answers.back().second == "this process does not hold the lock");
}

TEST_CASE("what a peer gone held goes to the next waiter; its own waits are forgotten") {
  SyncTable table(PeerBudget::Make({}));
  Told master, dead("w1"), waiting("w2"), also_dead("w3");
  const auto s = NewSemaphore(table, master, {1, SemaphoreSpec::kNoBound, false});
  table.Handle(dead.peer, Ask(Op::kSemaphoreAcquire, s), dead.answer(), t0);
  table.Handle(also_dead.peer, Ask(Op::kSemaphoreAcquire, s), also_dead.answer(), t0);
  table.Handle(waiting.peer, Ask(Op::kSemaphoreAcquire, s), waiting.answer(), t0);
  CHECK(table.Holders() == std::vector<std::string>{"w1"});
  table.ReleaseHeldBy("w3");
  table.ReleaseHeldBy("w1");
  CHECK(also_dead.answers.empty());
  CHECK(waiting.statuses() == std::vector<Status>{Status::kOk});
  CHECK(table.Holders() == std::vector<std::string>{"w2"});
}

TEST_CASE("a permit whose answer cannot be sent stays free for the next in line") {
  SyncTable table(PeerBudget::Make({}));
  Told master, gone("w1"), next("w2");
  const auto s = NewSemaphore(table, master, {0, SemaphoreSpec::kNoBound, false});
  table.Handle(gone.peer, Ask(Op::kSemaphoreAcquire, s), gone.answer(), t0);
  table.Handle(next.peer, Ask(Op::kSemaphoreAcquire, s), next.answer(), t0);
  gone.reachable = false;
  table.Handle(master.peer, Ask(Op::kSemaphoreRelease, s), master.answer(), t0);
  CHECK(next.statuses() == std::vector<Status>{Status::kOk});
  CHECK(table.HeldBy(s, "w1") == 0);
}

TEST_CASE("acquires and waits time out; a zero timeout asks only about now") {
  SyncTable table(PeerBudget::Make({}));
  Told master, a("w1");
  const auto s = NewSemaphore(table, master, {0, SemaphoreSpec::kNoBound, false});
  table.Handle(a.peer, AskWithin(Op::kSemaphoreAcquire, s, 0), a.answer(), t0);
  CHECK(a.statuses() == std::vector<Status>{Status::kTimeout});
  table.Handle(a.peer, AskWithin(Op::kSemaphoreAcquire, s, 100), a.answer(), t0);
  table.Tick(t0 + std::chrono::milliseconds(99));
  CHECK(a.answers.size() == 1);
  table.Tick(t0 + std::chrono::milliseconds(100));
  CHECK(a.statuses() == std::vector<Status>{Status::kTimeout, Status::kTimeout});
  // Timed out, it takes nothing a later release frees.
  table.Handle(master.peer, Ask(Op::kSemaphoreRelease, s), master.answer(), t0);
  CHECK(table.HeldBy(s, "w1") == 0);

  const auto e = New(table, master, Op::kEventNew);
  Told b("w2");
  table.Handle(b.peer, AskWithin(Op::kEventWait, e, 0), b.answer(), t0);
  table.Handle(b.peer, AskWithin(Op::kEventWait, e, 50), b.answer(), t0);
  table.Tick(t0 + std::chrono::milliseconds(50));
  CHECK(b.statuses() == std::vector<Status>{Status::kTimeout, Status::kTimeout});
}

TEST_CASE("setting an event answers every waiter; cleared, it is waited on again") {
  SyncTable table(PeerBudget::Make({}));
  Told master, a("w1"), b("w2");
  const auto e = New(table, master, Op::kEventNew);
  table.Handle(a.peer, Ask(Op::kEventWait, e), a.answer(), t0);
  table.Handle(b.peer, Ask(Op::kEventWait, e), b.answer(), t0);
  CHECK(a.answers.empty());
  table.Handle(master.peer, Ask(Op::kEventSet, e), master.answer(), t0);
  CHECK(a.statuses() == std::vector<Status>{Status::kOk});
  CHECK(b.statuses() == std::vector<Status>{Status::kOk});
  table.Handle(a.peer, AskWithin(Op::kEventWait, e, 0), a.answer(), t0);
  CHECK(a.answers.back().first == Status::kOk);
  table.Handle(master.peer, Ask(Op::kEventClear, e), master.answer(), t0);
  table.Handle(a.peer, AskWithin(Op::kEventWait, e, 0), a.answer(), t0);
  CHECK(a.answers.back().first == Status::kTimeout);
}

TEST_CASE("a bounded semaphore refuses a release past its bound; a holder's death never passes it") {
  SyncTable table(PeerBudget::Make({}));
  Told master, a("w1");
  const auto s = NewSemaphore(table, master, {2, 2, false});
  table.Handle(master.peer, Ask(Op::kSemaphoreRelease, s), master.answer(), t0);
  CHECK(master.answers.back().first == Status::kRefused);
  CHECK(master.answers.back().second.find("released more often than acquired") != std::string::npos);
  table.Handle(a.peer, Ask(Op::kSemaphoreAcquire, s), a.answer(), t0);
  // Released for it by another: the holder's death then gives back nothing.
  table.Handle(master.peer, Ask(Op::kSemaphoreRelease, s), master.answer(), t0);
  CHECK(master.answers.back().first == Status::kOk);
  CHECK(table.HeldBy(s, "w1") == 0);
  table.ReleaseHeldBy("w1");
  table.Handle(master.peer, Ask(Op::kSemaphoreRelease, s), master.answer(), t0);
  CHECK(master.answers.back().first == Status::kRefused);
  // Bounded at zero: no release ever.
  const auto zero = NewSemaphore(table, master, {0, 0, false});
  table.Handle(master.peer, Ask(Op::kSemaphoreRelease, zero), master.answer(), t0);
  CHECK(master.answers.back().first == Status::kRefused);
}

TEST_CASE("a worker may make a bounded number of objects; a malformed semaphore or unknown id is named") {
  SyncTable table(PeerBudget::Make({.objects = 2}));
  Told w("w1");
  CHECK(NewSemaphore(table, w, {1, 1, true}) != 0);
  CHECK(New(table, w, Op::kEventNew) != 0);
  CHECK(New(table, w, Op::kEventNew) == 0);
  CHECK(w.answers.back().first == Status::kRefused);
  CHECK(w.answers.back().second.find("2 open queues, locks, events, semaphores and shared values") != std::string::npos);
  Told master;
  CHECK(NewSemaphore(table, master, {3, 2, false}) == 0);
  CHECK(master.answers.back().first == Status::kNoSuchObject);
  table.Handle(master.peer, Ask(Op::kSemaphoreAcquire, 99), master.answer(), t0);
  CHECK(master.answers.back().second == "the run has no lock or semaphore 99");
  table.Handle(master.peer, Ask(Op::kEventSet, 99), master.answer(), t0);
  CHECK(master.answers.back().second == "the run has no event 99");
}
