// One of the run's queues as the master holds it (QueueTable holds them
// all, by id): its items and the requests waiting on it. A get is a
// request answered when an item exists, so an item goes only to a
// consumer that asked for it (one busy with its last item is not asking),
// waiting consumers are served in the order they asked, and a consumer
// that dies loses nothing it had not taken: an item whose answer cannot be
// sent (the asker's connection is gone) stays first for the next in line.
// A bounded queue (maxsize) makes puts wait while it is full, first-come
// like gets, so a connection's items go in in the order sent. Not
// thread-safe: the table's mutex guards it. The time comes in as an
// argument.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "master/held_items.hpp"
#include "master/peer_budget.hpp"
#include "wire/request.hpp"

namespace fiber::master {

class HeldQueue {
 public:
  using Clock = std::chrono::steady_clock;
  /// Answers one request; false when the asker cannot be reached.
  using Answer = std::function<bool(wire::Status, std::string_view body)>;
  /// Items a get of the master itself took, in order: views into the
  /// blocks holding them, which this keeps.
  struct Taken {
    std::vector<HeldItems::Block> blocks;
    std::vector<std::string_view> items;
  };
  /// Gives a get of the master itself its items, in place of an answer
  /// of kOk with their bytes.
  using Deliver = std::function<void(Taken)>;

  /// A queue of at most maxsize items (0: unbounded), charged to who made
  /// it by hold while it is held.
  HeldQueue(std::uint64_t maxsize, PeerBudget::Hold hold) : maxsize_(maxsize), hold_(std::move(hold)) {}

  /// Items held; not those waiting for room.
  std::size_t size() const { return items_.size(); }
  bool empty() const { return items_.empty(); }

  /// Puts the items of one put request now, or as room comes (Serve):
  /// refused when closed, and a zero timeout asks only about now.
  void Put(HeldItems items, const wire::Request& request, Answer answer, Clock::time_point now);
  /// A get (take) or a poll of peer's, answered by Serve once an item is
  /// there or the queue is closed; a get of the master's own may be given
  /// its items by deliver instead.
  void Wait(const std::string& peer, bool take, const wire::Request& request, Answer answer,
            Deliver deliver, Clock::time_point now);
  /// No more puts: waiting ones hear Closed, and waiting gets once the
  /// items are gone.
  void Close() { closed_ = true; }
  /// A get or get_many, given its items in *taken at once when the queue
  /// holds items and taking them answers nobody else (no earlier get
  /// waits, no put waits for room, not closed); false: it is to wait.
  bool TakeNow(const wire::Request& request, Taken* taken);
  /// Moves waiting puts in while there is room and serves waiters in order
  /// while there are items (or, closed, tells them both); true when it is
  /// closed and drained, to be freed.
  [[nodiscard]] bool Serve();
  /// Answers the waits whose time is up with kTimeout.
  void Tick(Clock::time_point now);
  /// Forgets the waits of peer, gone: nobody is left to answer.
  void DropWaitersOf(const std::string& peer);

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
  bool full() const { return maxsize_ != 0 && items_.size() >= maxsize_; }
  /// How many of the first items one get_many of up to `many` takes: as
  /// many as held, in one message that may travel.
  std::size_t BatchOf(std::uint32_t many) const;
  /// Takes the first n items.
  Taken TakeFirst(std::size_t n);

  HeldItems items_;
  std::deque<Waiter> waiters_;
  std::deque<Putter> putters_;
  std::uint64_t maxsize_ = 0;  // 0: unbounded
  bool closed_ = false;
  PeerBudget::Hold hold_;
};

}  // namespace fiber::master
