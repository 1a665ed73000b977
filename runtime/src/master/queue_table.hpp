// The run's queues, held by the master: each one's items and the requests
// waiting on it. A get is a request the master answers when an item exists,
// so an item goes only to a consumer that asked for it (one busy with its
// last item is not asking), waiting consumers are served in the order they
// asked, and a consumer that dies loses nothing it had not taken: an item
// whose answer cannot be sent (the asker's connection is gone) goes back to
// the front. Pipes are pairs of these queues. Not thread-safe: owned by the
// dispatcher's I/O thread; the time comes in as an argument.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <string>

#include "wire/request.hpp"

namespace fiber::master {

class QueueTable {
 public:
  using Clock = std::chrono::steady_clock;
  /// Answers one request; false when the asker cannot be reached.
  using Answer = std::function<bool(wire::Status, const std::string& body)>;

  std::uint64_t Create();
  /// A queue request (every Op but kManagerCall), answered now or later.
  void Handle(const wire::Request& request, Answer answer, Clock::time_point now);
  /// Answers the waits whose time is up with kTimeout.
  void Tick(Clock::time_point now);
  /// Items held, over all queues (for tests and status).
  std::size_t items() const;

 private:
  struct Waiter {
    bool take = true;  // a get (else a poll)
    std::optional<Clock::time_point> deadline;
    Answer answer;
  };
  struct Queue {
    std::deque<std::string> items;
    std::deque<Waiter> waiters;
    bool closed = false;
  };
  void Put(Queue& q, std::string item);
  void Wait(Queue& q, bool take, const wire::Request& request, Answer answer,
            Clock::time_point now);
  /// Serves waiters in order while there are items (or, closed, tells them).
  void Serve(Queue& q);

  std::map<std::uint64_t, Queue> queues_;
  std::uint64_t next_id_ = 1;
};

}  // namespace fiber::master
