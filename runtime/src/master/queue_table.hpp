// The run's queues, held by the master: each one's items and the requests
// waiting on it. A get is a request the master answers when an item exists,
// so an item goes only to a consumer that asked for it (one busy with its
// last item is not asking), waiting consumers are served in the order they
// asked, and a consumer that dies loses nothing it had not taken: an item
// whose answer cannot be sent (the asker's connection is gone) goes back to
// the front. A bounded queue (maxsize) makes puts wait while it is full,
// first-come like gets, so a connection's items go in in the order sent.
// Pipes are pairs of these queues. Items that came in one put (a
// PUT_MANY's list, or an item file mapped: wire/item_files.hpp) stay in
// one block, read in place, charged to the peer that put them (PeerBudget:
// their bytes and wire::kHeldOverheadBytes each, an item file a mapping)
// until the last of them is taken; a queue is charged to who made it until
// freed. A queue closed and drained is freed, its id answering as closed
// and empty from then on. Handle, Tick and DropWaitersOf run on the
// dispatcher's I/O thread (an answer may send on its socket); TakeNow,
// from any thread, lets the master's own gets take items without a
// hand-off to it. A mutex guards the table. The time comes in as an
// argument.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "master/held_items.hpp"
#include "master/peer_budget.hpp"
#include "wire/item_files.hpp"
#include "wire/request.hpp"

namespace fiber::master {

class QueueTable {
 public:
  using Clock = std::chrono::steady_clock;
  /// Answers one request; false when the asker cannot be reached.
  using Answer = std::function<bool(wire::Status, std::string_view body)>;
  /// Bytes that came in one put, charged to their putter while any of
  /// their items is held: a body (one item, or a PUT_MANY's list), or an
  /// item file mapped.
  struct Block {
    std::string body;
    wire::MappedItem mapped;
    PeerBudget::Hold hold;
  };
  /// Items a get of the master itself took, in order: views into the
  /// blocks holding them, which this keeps.
  struct Taken {
    std::vector<HeldItems::Block> blocks;
    std::vector<std::string_view> items;
  };
  /// Gives a get of the master itself its items, in place of an answer
  /// of kOk with their bytes.
  using Deliver = std::function<void(Taken)>;

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
  /// them answers nobody else (no earlier get waits, no put waits for
  /// room, not closed); false: Handle it as usual. Thread-safe.
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
    std::lock_guard<std::mutex> lock(mu_);
    return queues_.size();
  }

 private:
  struct Waiter {
    std::string peer;
    bool take = true;        // a get (else a poll)
    std::uint32_t many = 0;  // a get_many of up to this many (0: a get)
    std::optional<Clock::time_point> deadline;
    Answer answer;
    Deliver deliver;  // the master's own get: its items, in place of answer's kOk
  };
  // Items waiting for room in a full bounded queue, in order.
  struct Putter {
    HeldItems items;
    std::optional<Clock::time_point> deadline;
    Answer answer;
  };
  struct Queue {
    HeldItems items;
    std::deque<Waiter> waiters;
    std::deque<Putter> putters;
    std::uint64_t maxsize = 0;  // 0: unbounded
    bool closed = false;
    PeerBudget::Hold hold;
    bool full() const { return maxsize != 0 && items.size() >= maxsize; }
  };
  using Queues = std::map<std::uint64_t, Queue>;
  /// How many of q's first items one get_many of up to `many` takes: as
  /// many as held, in one message that may travel.
  static std::size_t BatchOf(const Queue& q, std::uint32_t many);
  /// Takes q's first n items.
  static Taken TakeFirst(Queue& q, std::size_t n);
  /// The items of a put request, in one block charged to peer; false when
  /// answered (malformed, too large, over peer's bound).
  bool BlockOf(const std::string& peer, wire::Request& request, const Answer& answer,
               HeldItems* items);
  void Create(const std::string& peer, const wire::Request& request, const Answer& answer);
  /// The answer for a queue freed once closed and drained.
  static void AnswerFreed(const wire::Request& request, const Answer& answer);
  /// Puts the request's items (BlockOf) now, or as room comes.
  void Put(Queue& q, HeldItems items, const wire::Request& request, Answer answer,
           Clock::time_point now);
  void Wait(const std::string& peer, Queue& q, bool take, const wire::Request& request,
            Answer answer, Deliver deliver, Clock::time_point now);
  /// Moves waiting puts in while there is room and serves waiters in order
  /// while there are items (or, closed, tells them both), then frees the queue if it is closed and drained.
  void Serve(Queues::iterator it);

  mutable std::mutex mu_;
  std::shared_ptr<PeerBudget> budget_;
  Queues queues_;
  std::uint64_t next_id_ = 1;
  std::shared_ptr<wire::ItemFiles> item_files_;  // when the run has them
};

}  // namespace fiber::master
