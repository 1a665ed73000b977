// The run's queues, held by the master (each one a HeldQueue, by id) and
// made, freed and put into here. Pipes are pairs of these queues. Items
// that came in one put (a PUT_MANY's list, or an item file mapped:
// wire/item_files.hpp) stay in one block, read in place, charged to the
// peer that put them (PeerBudget: their bytes and wire::kHeldOverheadBytes
// each, an item file a mapping) until the last of them is taken; a queue
// is charged to who made it until freed. A queue closed and drained is
// freed, its id answering as closed and empty from then on. Handle, Tick
// and DropWaitersOf run on the dispatcher's I/O thread (an answer may send
// on its socket); TakeNow, from any thread, lets the master's own gets take
// items without a hand-off to it. A mutex guards the table. The time comes
// in as an argument.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "master/held_items.hpp"
#include "master/held_queue.hpp"
#include "master/peer_budget.hpp"
#include "os/mutex.hpp"
#include "wire/item_files.hpp"
#include "wire/request.hpp"

namespace fiber::master {

class QueueTable {
 public:
  using Clock = HeldQueue::Clock;
  using Answer = HeldQueue::Answer;
  using Taken = HeldQueue::Taken;
  using Deliver = HeldQueue::Deliver;
  /// Bytes that came in one put, charged to their putter while any of
  /// their items is held: a body (one item, or a PUT_MANY's list), or an
  /// item file mapped.
  struct Block {
    std::string body;
    wire::MappedItem mapped;
    PeerBudget::Hold hold;
  };

  explicit QueueTable(std::shared_ptr<PeerBudget> budget) : budget_(std::move(budget)) {}

  /// Serves QUEUE_PUT_FILE from files; until then such puts are refused.
  /// Before the first request.
  void UseItemFiles(std::shared_ptr<wire::ItemFiles> files) { item_files_ = std::move(files); }
  /// A queue request (every Op but kManagerCall) from peer ("" for the
  /// master itself), answered now or later; a get of the master's own
  /// may be given its items by deliver instead. An item is moved out of
  /// request, not copied.
  void Handle(const std::string& peer, wire::Request request, Answer answer,
              Clock::time_point now, Deliver deliver = nullptr);
  /// A get or get_many of the master itself (peer ""), given its items in
  /// *taken on the caller's thread when the queue holds items and taking
  /// them answers nobody else (HeldQueue::TakeNow); false: Handle it as
  /// usual. Thread-safe.
  bool TakeNow(const wire::Request& request, Taken* taken);
  /// Answers the waits whose time is up with kTimeout.
  void Tick(Clock::time_point now);
  /// Forgets the waits of peer, gone: nobody is left to answer.
  void DropWaitersOf(const std::string& peer);
  /// Items held, over all queues (for tests and status); not those
  /// waiting for room.
  std::size_t items() const;
  /// Queues held (made, not yet closed and drained).
  std::size_t queues() const {
    os::MutexLock lock(mu_);
    return queues_.size();
  }

 private:
  using Queues = std::map<std::uint64_t, HeldQueue>;
  /// The items of a put request, in one block charged to peer; false when
  /// answered (malformed, too large, over peer's bound).
  bool BlockOf(const std::string& peer, wire::Request& request, const Answer& answer,
               HeldItems* items) FIBER_REQUIRES(mu_);
  void Create(const std::string& peer, const wire::Request& request, const Answer& answer) FIBER_REQUIRES(mu_);
  /// The answer for a queue freed once closed and drained.
  static void AnswerFreed(const wire::Request& request, const Answer& answer);
  /// Serves the queue (HeldQueue::Serve), and frees it once closed and drained.
  void Serve(Queues::iterator it) FIBER_REQUIRES(mu_);

  mutable os::Mutex mu_;
  std::shared_ptr<PeerBudget> budget_;
  Queues queues_ FIBER_GUARDED_BY(mu_);
  std::uint64_t next_id_ FIBER_GUARDED_BY(mu_) = 1;
  std::shared_ptr<wire::ItemFiles> item_files_;  // when the run has them
};

}  // namespace fiber::master
