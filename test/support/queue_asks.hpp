// Asks of the master's queues (master/queue_table.hpp) as their tests make
// them, each answered to a Told at one moment, t0: make a queue, put items,
// get them, and read what the master's own get took.
#pragma once

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <string>
#include <vector>

#include "master/queue_table.hpp"
#include "support/told.hpp"

/// The one moment every ask is made at; tests move their own clock from it.
inline const auto t0 = fiber::master::QueueTable::Clock::time_point{};

/// Each of who asks q for an item, in turn.
inline void Get(fiber::master::QueueTable& table, std::uint64_t q, std::initializer_list<Told*> who) {
  for (Told* t : who) table.Handle(t->peer, Ask(fiber::wire::Op::kQueueGet, q), t->answer(), t0);
}
/// Each item put into q, in turn.
inline void Put(fiber::master::QueueTable& table, std::uint64_t q, std::initializer_list<const char*> items,
                Told& who) {
  for (const char* item : items)
    table.Handle(who.peer, Ask(fiber::wire::Op::kQueuePut, q, item), who.answer(), t0);
}
/// A new queue made by who; 0 when refused.
inline std::uint64_t New(fiber::master::QueueTable& table, Told& who) {
  table.Handle(who.peer, Ask(fiber::wire::Op::kQueueNew, 0), who.answer(), t0);
  const auto& [status, body] = who.answers.back();
  std::uint64_t id = 0;
  if (status == fiber::wire::Status::kOk && body.size() == sizeof id) std::memcpy(&id, body.data(), sizeof id);
  return id;
}
inline std::uint64_t New(fiber::master::QueueTable& table) {
  Told master;
  return New(table, master);
}
/// A get_many of up to n items of q.
inline fiber::wire::Request GetMany(std::uint64_t q, std::uint32_t n) {
  return Ask(fiber::wire::Op::kQueueGetMany, q, std::string(reinterpret_cast<const char*>(&n), sizeof n));
}
/// The items a get of the master's own took.
inline std::vector<std::string> Items(const fiber::master::QueueTable::Taken& taken) {
  return {taken.items.begin(), taken.items.end()};
}
