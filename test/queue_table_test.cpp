// The master's queues without sockets or processes: who gets an item, what
// happens to one whose answer cannot be sent, timeouts and close, driven
// with answers that record what they were told and a clock of our own.
#include <doctest/doctest.h>

#include <initializer_list>
#include <string>
#include <vector>

#include "master/queue_table.hpp"

using fiber::master::QueueTable;
using fiber::wire::Op;
using fiber::wire::Request;
using fiber::wire::Status;

namespace {

struct Told {
  std::vector<std::pair<Status, std::string>> answers;
  bool reachable = true;
  QueueTable::Answer answer() {
    return [this](Status s, const std::string& body) {
      if (!reachable) return false;
      answers.emplace_back(s, body);
      return true;
    };
  }
};

Request Ask(Op op, std::uint64_t queue, std::string body = {}) {
  Request r;
  r.op = op;
  r.object = queue;
  r.body = std::move(body);
  return r;
}

const auto t0 = QueueTable::Clock::time_point{};

// Each of who asks q for an item, in turn.
void Get(QueueTable& table, std::uint64_t q, std::initializer_list<Told*> who) {
  for (Told* t : who) table.Handle(Ask(Op::kQueueGet, q), t->answer(), t0);
}
// Each item put into q, in turn.
void Put(QueueTable& table, std::uint64_t q, std::initializer_list<const char*> items, Told& who) {
  for (const char* item : items) table.Handle(Ask(Op::kQueuePut, q, item), who.answer(), t0);
}

}  // namespace

TEST_CASE("waiting consumers get items in the order they asked, each item once") {
  QueueTable table;
  const auto q = table.Create();
  Told a, b, producer;
  Get(table, q, {&a, &b});
  Put(table, q, {"1", "2", "3"}, producer);
  REQUIRE(a.answers.size() == 1);
  REQUIRE(b.answers.size() == 1);
  CHECK(a.answers[0].second == "1");
  CHECK(b.answers[0].second == "2");
  CHECK(table.items() == 1);  // no one asked for the third
}

TEST_CASE("an item whose answer cannot be sent goes to the next in line") {
  QueueTable table;
  const auto q = table.Create();
  Told dead, alive, producer;
  Get(table, q, {&dead, &alive});
  dead.reachable = false;
  Put(table, q, {"item"}, producer);
  REQUIRE(alive.answers.size() == 1);
  CHECK(alive.answers[0].second == "item");
  CHECK(table.items() == 0);
}

TEST_CASE("a get times out at its deadline, and a zero timeout asks only about now") {
  QueueTable table;
  const auto q = table.Create();
  Told waiter, now_only;
  Request get = Ask(Op::kQueueGet, q);
  get.timeout_ms = 100;
  table.Handle(get, waiter.answer(), t0);
  table.Tick(t0 + std::chrono::milliseconds(99));
  CHECK(waiter.answers.empty());
  table.Tick(t0 + std::chrono::milliseconds(100));
  REQUIRE(waiter.answers.size() == 1);
  CHECK(waiter.answers[0].first == Status::kTimeout);
  get.timeout_ms = 0;
  table.Handle(get, now_only.answer(), t0);
  REQUIRE(now_only.answers.size() == 1);
  CHECK(now_only.answers[0].first == Status::kTimeout);
}

TEST_CASE("close: puts are refused, gets drain the items, then waiters hear Closed") {
  QueueTable table;
  const auto q = table.Create();
  Told producer, consumer, late;
  Put(table, q, {"last"}, producer);
  table.Handle(Ask(Op::kQueueClose, q), producer.answer(), t0);
  Put(table, q, {"more"}, producer);
  CHECK(producer.answers.back().first == Status::kClosed);
  Get(table, q, {&consumer, &late});
  CHECK(consumer.answers.at(0) == std::pair<Status, std::string>{Status::kOk, "last"});
  CHECK(late.answers.at(0).first == Status::kClosed);
}

TEST_CASE("a poll answers once an item is there and takes nothing; an unknown queue is named") {
  QueueTable table;
  const auto q = table.Create();
  Told poller, producer, stranger;
  table.Handle(Ask(Op::kQueuePoll, q), poller.answer(), t0);
  CHECK(poller.answers.empty());
  Put(table, q, {"x"}, producer);
  CHECK(poller.answers.size() == 1);
  CHECK(table.items() == 1);
  Get(table, 999, {&stranger});
  CHECK(stranger.answers.at(0).first == Status::kNoSuchObject);
  CHECK(stranger.answers.at(0).second.find("999") != std::string::npos);
}
