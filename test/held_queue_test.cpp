// One queue as the master holds it (master/held_queue.hpp), asked through
// the run's queue table without sockets or processes: who gets an item,
// what happens to one whose answer cannot be sent, timeouts and close, a
// bounded queue's waiting puts, batches, and the master's own gets, driven
// with answers that record what they were told and a clock of our own.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "master/queue_table.hpp"
#include "support/queue_asks.hpp"
#include "support/told.hpp"

using fiber::master::PeerBudget;
using fiber::master::QueueTable;
using fiber::wire::Op;
using fiber::wire::Request;
using fiber::wire::Status;

namespace {

// A new bounded queue.
std::uint64_t NewBounded(QueueTable& table, std::uint64_t maxsize) {
  Told master;
  table.Handle("", Ask(Op::kQueueNew, 0, fiber::wire::EncodeU64(maxsize)), master.answer(), t0);
  std::uint64_t id = 0;
  REQUIRE(fiber::wire::DecodeU64(master.answers.at(0).second, &id));
  return id;
}
std::uint64_t Size(QueueTable& table, std::uint64_t q) {
  Told asker;
  table.Handle("", Ask(Op::kQueueSize, q), asker.answer(), t0);
  std::uint64_t n = 0;
  REQUIRE(fiber::wire::DecodeU64(asker.answers.at(0).second, &n));
  return n;
}
std::vector<std::string> Items(const std::string& body) {
  std::vector<std::string_view> items;
  REQUIRE(fiber::wire::DecodeList(body, &items));
  return {items.begin(), items.end()};
}

}  // namespace

TEST_CASE("waiting consumers get items in the order they asked, each item once") {
  QueueTable table(PeerBudget::Make({}));
  const auto q = New(table);
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
  QueueTable table(PeerBudget::Make({}));
  const auto q = New(table);
  Told dead, alive, producer;
  Get(table, q, {&dead, &alive});
  dead.reachable = false;
  Put(table, q, {"item"}, producer);
  REQUIRE(alive.answers.size() == 1);
  CHECK(alive.answers[0].second == "item");
  CHECK(table.items() == 0);
}

TEST_CASE("a get times out at its deadline, and a zero timeout asks only about now") {
  QueueTable table(PeerBudget::Make({}));
  const auto q = New(table);
  Told waiter, now_only;
  Request get = Ask(Op::kQueueGet, q);
  get.timeout_ms = 100;
  table.Handle("", get, waiter.answer(), t0);
  table.Tick(t0 + std::chrono::milliseconds(99));
  CHECK(waiter.answers.empty());
  table.Tick(t0 + std::chrono::milliseconds(100));
  REQUIRE(waiter.answers.size() == 1);
  CHECK(waiter.answers[0].first == Status::kTimeout);
  get.timeout_ms = 0;
  table.Handle("", get, now_only.answer(), t0);
  REQUIRE(now_only.answers.size() == 1);
  CHECK(now_only.answers[0].first == Status::kTimeout);
}

TEST_CASE("close: puts are refused, gets drain the items, then waiters hear Closed") {
  QueueTable table(PeerBudget::Make({}));
  const auto q = New(table);
  Told producer, consumer, late;
  Put(table, q, {"last"}, producer);
  table.Handle("", Ask(Op::kQueueClose, q), producer.answer(), t0);
  Put(table, q, {"more"}, producer);
  CHECK(producer.answers.back().first == Status::kClosed);
  Get(table, q, {&consumer, &late});
  CHECK(consumer.answers.at(0) == std::pair<Status, std::string>{Status::kOk, "last"});
  CHECK(late.answers.at(0).first == Status::kClosed);
}

TEST_CASE("a poll answers once an item is there and takes nothing; an unknown queue is named") {
  QueueTable table(PeerBudget::Make({}));
  const auto q = New(table);
  Told poller, producer, stranger;
  table.Handle("", Ask(Op::kQueuePoll, q), poller.answer(), t0);
  CHECK(poller.answers.empty());
  Put(table, q, {"x"}, producer);
  CHECK(poller.answers.size() == 1);
  CHECK(table.items() == 1);
  Get(table, 999, {&stranger});
  CHECK(stranger.answers.at(0).first == Status::kNoSuchObject);
  CHECK(stranger.answers.at(0).second.find("999") != std::string::npos);
}

TEST_CASE("the waits of a peer that left are dropped; others' stay") {
  QueueTable table(PeerBudget::Make({}));
  const auto q = New(table);
  Told gone("w0"), staying("w1"), producer;
  Get(table, q, {&gone, &gone, &staying});
  table.DropWaitersOf("w0");
  Put(table, q, {"1", "2"}, producer);
  CHECK(gone.answers.empty());
  REQUIRE(staying.answers.size() == 1);
  CHECK(staying.answers[0].second == "1");
  CHECK(table.items() == 1);
}

TEST_CASE("a full bounded queue holds puts first-come until gets make room") {
  QueueTable table(PeerBudget::Make({}));
  const auto q = NewBounded(table, 2);
  Told first, second, consumer;
  Put(table, q, {"1", "2", "3"}, first);
  Put(table, q, {"4"}, second);
  CHECK(first.statuses() == std::vector<Status>{Status::kOk, Status::kOk});
  CHECK(second.answers.empty());
  CHECK(Size(table, q) == 2);
  CHECK(table.items() == 2);  // those waiting for room are not in yet
  Get(table, q, {&consumer, &consumer, &consumer, &consumer});
  CHECK(first.answers.size() == 3);
  CHECK(second.answers.size() == 1);
  std::vector<std::string> got;
  for (const auto& [status, body] : consumer.answers) got.push_back(body);
  CHECK(got == std::vector<std::string>{"1", "2", "3", "4"});
  CHECK(Size(table, q) == 0);
}

TEST_CASE("a put into a full queue times out without its item; zero asks only about now") {
  QueueTable table(PeerBudget::Make({}));
  const auto q = NewBounded(table, 1);
  Told producer, waiting, now_only, consumer;
  Put(table, q, {"in"}, producer);
  Request put = Ask(Op::kQueuePut, q, "late");
  put.timeout_ms = 50;
  table.Handle("", put, waiting.answer(), t0);
  put.timeout_ms = 0;
  table.Handle("", put, now_only.answer(), t0);
  CHECK(now_only.statuses() == std::vector<Status>{Status::kTimeout});
  table.Tick(t0 + std::chrono::milliseconds(50));
  CHECK(waiting.statuses() == std::vector<Status>{Status::kTimeout});
  Get(table, q, {&consumer, &consumer});
  CHECK(consumer.answers.size() == 1);
  CHECK(consumer.answers[0].second == "in");
}

TEST_CASE("closing a full queue tells the waiting puts Closed") {
  QueueTable table(PeerBudget::Make({}));
  const auto q = NewBounded(table, 1);
  Told producer, closer;
  Put(table, q, {"1", "2"}, producer);
  table.Handle("", Ask(Op::kQueueClose, q), closer.answer(), t0);
  CHECK(producer.statuses() == std::vector<Status>{Status::kOk, Status::kClosed});
}

TEST_CASE("put_many puts in order, a bounded queue taking them as room comes") {
  QueueTable table(PeerBudget::Make({}));
  const auto q = NewBounded(table, 2);
  Told producer, consumer;
  table.Handle("", Ask(Op::kQueuePutMany, q, fiber::wire::EncodeList({"a", "b", "c", "d"})),
               producer.answer(), t0);
  CHECK(producer.answers.empty());  // two are in, two wait for room
  CHECK(Size(table, q) == 2);
  table.Handle("", GetMany(q, 10), consumer.answer(), t0);
  CHECK(Items(consumer.answers.at(0).second) == std::vector<std::string>{"a", "b"});
  CHECK(producer.statuses() == std::vector<Status>{Status::kOk});
  table.Handle("", GetMany(q, 10), consumer.answer(), t0);
  CHECK(Items(consumer.answers.at(1).second) == std::vector<std::string>{"c", "d"});
}

TEST_CASE("get_many waits only for the first item and takes at most n") {
  QueueTable table(PeerBudget::Make({}));
  const auto q = New(table);
  Told batcher, other, producer, bad;
  table.Handle("", GetMany(q, 3), batcher.answer(), t0);
  CHECK(batcher.answers.empty());
  Put(table, q, {"1"}, producer);
  CHECK(Items(batcher.answers.at(0).second) == std::vector<std::string>{"1"});
  Put(table, q, {"2", "3", "4", "5"}, producer);
  table.Handle("", GetMany(q, 3), batcher.answer(), t0);
  CHECK(Items(batcher.answers.at(1).second) == std::vector<std::string>{"2", "3", "4"});
  Get(table, q, {&other});
  CHECK(other.answers.at(0).second == "5");
  table.Handle("", GetMany(q, 0), bad.answer(), t0);
  CHECK(bad.statuses() == std::vector<Status>{Status::kNoSuchObject});
}

TEST_CASE("a batch whose answer cannot be sent stays, in order, for the next in line") {
  QueueTable table(PeerBudget::Make({}));
  const auto q = New(table);
  Told dead, alive, producer;
  table.Handle("", GetMany(q, 2), dead.answer(), t0);
  table.Handle("", GetMany(q, 5), alive.answer(), t0);
  dead.reachable = false;
  table.Handle("", Ask(Op::kQueuePutMany, q, fiber::wire::EncodeList({"1", "2", "3"})),
               producer.answer(), t0);
  CHECK(Items(alive.answers.at(0).second) == std::vector<std::string>{"1", "2", "3"});
  CHECK(table.items() == 0);
}

TEST_CASE("a get of the master's own that waits is given its items in place, in turn with others") {
  QueueTable table(PeerBudget::Make({}));
  const auto q = New(table);
  Told worker("w0"), first("w1"), master;
  std::vector<QueueTable::Taken> given;
  table.Handle(first.peer, Ask(Op::kQueueGet, q), first.answer(), t0);
  table.Handle("", GetMany(q, 3), master.answer(), t0,
               [&](QueueTable::Taken taken) { given.push_back(std::move(taken)); });
  table.Handle("w0", Ask(Op::kQueuePutMany, q, fiber::wire::EncodeList({"a", "b", "c", "d"})),
               worker.answer(), t0);
  CHECK(first.answers.at(0).second == "a");
  REQUIRE(given.size() == 1);
  CHECK(Items(given[0]) == std::vector<std::string>{"b", "c", "d"});
  CHECK(master.answers.empty());
  CHECK(table.items() == 0);
}

TEST_CASE("the master's own get leaves to the I/O thread what would answer another: a put "
          "waiting for room, a closed queue") {
  QueueTable table(PeerBudget::Make({}));
  const auto q = NewBounded(table, 1);
  Told producer, consumer, closer;
  Put(table, q, {"1", "2"}, producer);
  QueueTable::Taken body;
  CHECK_FALSE(table.TakeNow(Ask(Op::kQueueGet, q), &body));  // "2" waits for room
  Get(table, q, {&consumer});
  CHECK(producer.statuses() == std::vector<Status>{Status::kOk, Status::kOk});
  table.Handle("", Ask(Op::kQueueClose, q), closer.answer(), t0);
  CHECK_FALSE(table.TakeNow(Ask(Op::kQueueGet, q), &body));  // its last item frees it
  Get(table, q, {&consumer, &consumer});
  CHECK(consumer.statuses() == std::vector<Status>{Status::kOk, Status::kOk, Status::kClosed});
  CHECK(table.queues() == 0);
}
