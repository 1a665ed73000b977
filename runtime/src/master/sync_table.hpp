// The run's locks, semaphores and events, held by the master, as
// multiprocessing's Lock, Semaphore, BoundedSemaphore and Event. A lock is
// a semaphore of one that only a holder may release. An acquire or a wait
// is a request the master answers when it can: waiters are served in the
// order they asked. What a peer holds is released when it is gone
// (ReleaseHeldBy), so nobody waits forever behind a killed worker. Each
// object is charged to the peer that made it (PeerBudget) and lives as long
// as the run. Not thread-safe: owned by the dispatcher's I/O thread; the
// time comes in as an argument.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "master/peer_budget.hpp"
#include "master/queue_table.hpp"
#include "wire/request.hpp"

namespace fiber::master {

class SyncTable {
 public:
  using Clock = std::chrono::steady_clock;
  using Answer = QueueTable::Answer;

  explicit SyncTable(std::shared_ptr<PeerBudget> budget) : budget_(std::move(budget)) {}

  /// True for the ops this table serves.
  static bool Serves(wire::Op op);
  /// A request from peer ("" for the master itself), answered now or later.
  void Handle(const std::string& peer, const wire::Request& request, Answer answer,
              Clock::time_point now);
  /// Answers the waits whose time is up with kTimeout.
  void Tick(Clock::time_point now);
  /// The peers holding a lock or a semaphore now (never the master, "").
  std::vector<std::string> Holders() const;
  /// peer is gone: what it held is released (and given to who waits), and
  /// its waits are forgotten.
  void ReleaseHeldBy(const std::string& peer);
  /// Permits of semaphore id that peer holds (for tests).
  std::uint32_t HeldBy(std::uint64_t id, const std::string& peer) const;

 private:
  struct Waiter {
    std::string peer;
    std::optional<Clock::time_point> deadline;
    Answer answer;
  };
  struct Semaphore {
    wire::SemaphoreSpec spec;
    std::uint32_t value = 0;                  // permits free now
    std::map<std::string, std::uint32_t> held;  // by peer
    std::deque<Waiter> waiters;
    PeerBudget::Hold hold;
  };
  struct Event {
    bool set = false;
    std::deque<Waiter> waiters;
    PeerBudget::Hold hold;
  };
  /// Charges a new object to peer; false (answered) when over its bound.
  bool Charge(const std::string& peer, PeerBudget::Hold* hold, const Answer& answer);
  void Acquire(const std::string& peer, Semaphore& s, const wire::Request& request, Answer answer,
               Clock::time_point now);
  void Release(const std::string& peer, Semaphore& s, const Answer& answer);
  /// Gives free permits to waiters in order.
  static void Serve(Semaphore& s);
  static void Wait(const std::string& peer, std::deque<Waiter>* waiters,
                   const wire::Request& request, Answer answer, Clock::time_point now);

  std::shared_ptr<PeerBudget> budget_;
  std::map<std::uint64_t, Semaphore> semaphores_;
  std::map<std::uint64_t, Event> events_;
  std::uint64_t next_id_ = 1;
};

}  // namespace fiber::master
