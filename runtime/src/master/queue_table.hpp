// The run's queues, held by the master: each one's items and the requests
// waiting on it. A get is a request the master answers when an item exists,
// so an item goes only to a consumer that asked for it (one busy with its
// last item is not asking), waiting consumers are served in the order they
// asked, and a consumer that dies loses nothing it had not taken: an item
// whose answer cannot be sent (the asker's connection is gone) goes back to
// the front. A bounded queue (maxsize) makes puts wait while it is full,
// first-come like gets, so a connection's items go in in the order sent.
// Pipes are pairs of these queues. Each item and queue is charged
// to the peer that put or made it (PeerBudget) until it is taken or freed;
// a queue closed and drained is freed, its id answering as closed and empty
// from then on. Not thread-safe: owned by the dispatcher's I/O thread; the
// time comes in as an argument.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "master/peer_budget.hpp"
#include "wire/request.hpp"

namespace fiber::master {

class QueueTable {
 public:
  using Clock = std::chrono::steady_clock;
  /// Answers one request; false when the asker cannot be reached.
  using Answer = std::function<bool(wire::Status, const std::string& body)>;

  explicit QueueTable(std::shared_ptr<PeerBudget> budget) : budget_(std::move(budget)) {}

  /// A queue request (every Op but kManagerCall) from peer ("" for the
  /// master itself), answered now or later.
  /// An item is moved out of request, not copied.
  void Handle(const std::string& peer, wire::Request request, Answer answer,
              Clock::time_point now);
  /// Answers the waits whose time is up with kTimeout.
  void Tick(Clock::time_point now);
  /// Forgets the waits of peer, gone: nobody is left to answer.
  void DropWaitersOf(const std::string& peer);
  /// Items held, over all queues (for tests and status); not those
  /// waiting for room.
  std::size_t items() const;
  /// Queues held (made, not yet closed and drained).
  std::size_t queues() const { return queues_.size(); }

 private:
  struct Item {
    std::string bytes;
    PeerBudget::Hold hold;
  };
  struct Waiter {
    std::string peer;
    bool take = true;        // a get (else a poll)
    std::uint32_t many = 0;  // a get_many of up to this many (0: a get)
    std::optional<Clock::time_point> deadline;
    Answer answer;
  };
  // Items waiting for room in a full bounded queue, in order.
  struct Putter {
    std::deque<Item> items;
    std::optional<Clock::time_point> deadline;
    Answer answer;
  };
  struct Queue {
    std::deque<Item> items;
    std::deque<Waiter> waiters;
    std::deque<Putter> putters;
    std::uint64_t maxsize = 0;  // 0: unbounded
    bool closed = false;
    PeerBudget::Hold hold;
    bool full() const { return maxsize != 0 && items.size() >= maxsize; }
  };
  using Queues = std::map<std::uint64_t, Queue>;
  void Create(const std::string& peer, const wire::Request& request, const Answer& answer);
  /// The answer for a queue freed once closed and drained.
  static void AnswerFreed(const wire::Request& request, const Answer& answer);
  /// Puts the request's item (or items, for kQueuePutMany) now, or as room
  /// comes.
  void Put(const std::string& peer, Queue& q, wire::Request& request, Answer answer,
           Clock::time_point now);
  void Wait(const std::string& peer, Queue& q, bool take, const wire::Request& request,
            Answer answer, Clock::time_point now);
  /// Moves waiting puts in while there is room and serves waiters in order
  /// while there are items (or, closed, tells them both), then frees the queue if it is closed and drained.
  void Serve(Queues::iterator it);

  std::shared_ptr<PeerBudget> budget_;
  Queues queues_;
  std::uint64_t next_id_ = 1;
};

}  // namespace fiber::master
