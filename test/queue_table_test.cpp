// The master's queues without sockets or processes: who gets an item, what
// happens to one whose answer cannot be sent, timeouts and close, what a
// worker may make them hold, items held in place (in a put's body or its
// item file), driven with answers that record what they
// were told and a clock of our own.
#include <doctest/doctest.h>
#include <unistd.h>

#include <cstring>
#include <initializer_list>
#include <string>
#include <vector>

#include "master/queue_table.hpp"
#include "wire/item_directory.hpp"
#include "wire/item_files.hpp"
#include "wire/limits.hpp"
#include "support/told.hpp"

using fiber::master::PeerBudget;
using fiber::master::QueueTable;
using fiber::wire::Op;
using fiber::wire::Request;
using fiber::wire::Status;

namespace {

const auto t0 = QueueTable::Clock::time_point{};
// What the master charges for each item beside its bytes.
constexpr std::size_t kEach = fiber::wire::kHeldOverheadBytes;

// Each of who asks q for an item, in turn.
void Get(QueueTable& table, std::uint64_t q, std::initializer_list<Told*> who) {
  for (Told* t : who) table.Handle(t->peer, Ask(Op::kQueueGet, q), t->answer(), t0);
}
// Each item put into q, in turn.
void Put(QueueTable& table, std::uint64_t q, std::initializer_list<const char*> items, Told& who) {
  for (const char* item : items) table.Handle(who.peer, Ask(Op::kQueuePut, q, item), who.answer(), t0);
}
// A new queue made by who; 0 when refused.
std::uint64_t New(QueueTable& table, Told& who) {
  table.Handle(who.peer, Ask(Op::kQueueNew, 0), who.answer(), t0);
  const auto& [status, body] = who.answers.back();
  std::uint64_t id = 0;
  if (status == Status::kOk && body.size() == sizeof id) std::memcpy(&id, body.data(), sizeof id);
  return id;
}
std::uint64_t New(QueueTable& table) {
  Told master;
  return New(table, master);
}
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
Request GetMany(std::uint64_t q, std::uint32_t n) {
  return Ask(Op::kQueueGetMany, q, std::string(reinterpret_cast<const char*>(&n), sizeof n));
}
// A run's item directory (named after this test and process), as its
// master and a worker of its machine see it.
struct ItemDirectory {
  explicit ItemDirectory(const std::string& name) : run(name + std::to_string(::getpid())) {
    std::string err;
    master = fiber::wire::ItemFiles::Create(run, &err);
    REQUIRE_MESSAGE(master, err);
    worker = fiber::wire::ItemFiles::Open(run);
    REQUIRE(worker);
  }
  std::string run;
  std::string dir = fiber::wire::ItemDirectoryOf(run);
  std::shared_ptr<fiber::wire::ItemFiles> master, worker;
};

std::vector<std::string> Items(const std::string& body) {
  std::vector<std::string_view> items;
  REQUIRE(fiber::wire::DecodeList(body, &items));
  return {items.begin(), items.end()};
}
std::vector<std::string> Items(const QueueTable::Taken& taken) {
  return {taken.items.begin(), taken.items.end()};
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

TEST_CASE("a worker's items count against its bytes until taken; beyond its bound a put is refused") {
  auto budget = PeerBudget::Make({.bytes = 10 + 2 * kEach});
  QueueTable bounded(budget);
  const auto q = New(bounded);
  Told worker("w0"), consumer;
  Put(bounded, q, {"12345", "67890", "x"}, worker);
  REQUIRE(worker.answers.size() == 3);
  CHECK(worker.answers[1].first == Status::kOk);
  CHECK(worker.answers[2].first == Status::kRefused);
  CHECK(worker.answers[2].second.find("bytes") != std::string::npos);
  CHECK(bounded.items() == 2);
  CHECK(budget->Of("w0").bytes == 10 + 2 * kEach);
  Get(bounded, q, {&consumer});  // taken: no longer the master's to hold
  CHECK(budget->Of("w0").bytes == 5 + kEach);
  Put(bounded, q, {"x"}, worker);
  CHECK(worker.answers.back().first == Status::kOk);
  // The master's own puts are not bounded.
  Told master;
  Put(bounded, q, {"a long item of the master's own"}, master);
  CHECK(master.answers.back().first == Status::kOk);
}

TEST_CASE("empty items count: a worker putting many is refused once its bytes are spent, and the "
          "queue holds no more than they pay for") {
  auto budget = PeerBudget::Make({.bytes = 1000 * kEach});
  QueueTable bounded(budget);
  const auto q = New(bounded);
  Told worker("w0");
  const std::string empties = fiber::wire::EncodeList(std::vector<std::string_view>(600));
  for (int i = 0; i < 3; ++i) bounded.Handle("w0", Ask(Op::kQueuePutMany, q, empties), worker.answer(), t0);
  CHECK(worker.statuses() == std::vector<Status>{Status::kOk, Status::kRefused, Status::kRefused});
  CHECK(worker.answers[1].second.find("it holds 38400 bytes of items, calls and values") != std::string::npos);
  CHECK(bounded.items() == 600);
  CHECK(budget->Of("w0").bytes == 600 * kEach);
  Put(bounded, q, {""}, worker);  // one more empty item costs as much
  CHECK(budget->Of("w0").bytes == 601 * kEach);
}

TEST_CASE("a worker may hold a bounded number of open queues; a closed, drained queue is freed") {
  auto budget = PeerBudget::Make({.objects = 2});
  QueueTable table(budget);
  Told worker("w0");
  const auto a = New(table, worker);
  const auto b = New(table, worker);
  CHECK(a != 0);
  CHECK(b != 0);
  CHECK(New(table, worker) == 0);
  CHECK(worker.answers.back().first == Status::kRefused);
  CHECK(table.queues() == 2);
  Put(table, a, {"last"}, worker);
  table.Handle("w0", Ask(Op::kQueueClose, a), worker.answer(), t0);
  CHECK(table.queues() == 2);  // it still holds an item
  Told consumer;
  Get(table, a, {&consumer, &consumer});
  CHECK(consumer.answers.at(0).second == "last");
  CHECK(consumer.answers.at(1).first == Status::kClosed);
  CHECK(table.queues() == 1);  // closed and drained: freed
  CHECK(budget->Of("w0").objects == 1);
  CHECK(New(table, worker) != 0);
  // Its id answers as a closed, empty queue, not as one the run never had.
  Told late;
  Put(table, a, {"more"}, late);
  Get(table, a, {&late});
  table.Handle("", Ask(Op::kQueueEmpty, a), late.answer(), t0);
  CHECK(late.answers.at(0).first == Status::kClosed);
  CHECK(late.answers.at(1).first == Status::kClosed);
  CHECK(late.answers.at(2) == std::pair<Status, std::string>{Status::kOk, "1"});
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

TEST_CASE("the master's own get takes items already there at once, in order, and a worker's "
          "charge returns once the last item of its put is let go") {
  auto budget = PeerBudget::Make({});
  QueueTable table(budget);
  const auto q = New(table);
  Told worker("w0");
  Put(table, q, {"1", "2", "3", "4"}, worker);
  QueueTable::Taken taken;
  REQUIRE(table.TakeNow(Ask(Op::kQueueGet, q), &taken));
  CHECK(Items(taken) == std::vector<std::string>{"1"});
  REQUIRE(table.TakeNow(GetMany(q, 2), &taken));
  CHECK(Items(taken) == std::vector<std::string>{"2", "3"});
  CHECK(table.items() == 1);
  CHECK(budget->Of("w0").bytes == 3 * (1 + kEach));  // "2" and "3" are read in place
  taken = {};
  CHECK(budget->Of("w0").bytes == 1 + kEach);
  // Items put together are held together until the last is let go.
  table.Handle("w0", Ask(Op::kQueuePutMany, q, fiber::wire::EncodeList({"56", "78"})),
               worker.answer(), t0);
  REQUIRE(table.TakeNow(GetMany(q, 2), &taken));
  CHECK(Items(taken) == std::vector<std::string>{"4", "56"});
  CHECK(budget->Of("w0").bytes == 5 + 3 * kEach);
  QueueTable::Taken last;
  REQUIRE(table.TakeNow(GetMany(q, 5), &last));
  CHECK(Items(last) == std::vector<std::string>{"78"});
  taken = {};
  CHECK(budget->Of("w0").bytes == 4 + 2 * kEach);
  last = {};
  CHECK(budget->Of("w0").bytes == 0);
  // Nothing there, or not a get: asked the usual way, answered later.
  CHECK_FALSE(table.TakeNow(Ask(Op::kQueueGet, q), &taken));
  CHECK_FALSE(table.TakeNow(Ask(Op::kQueuePoll, q), &taken));
  CHECK_FALSE(table.TakeNow(Ask(Op::kQueueGet, q + 1), &taken));
  CHECK_FALSE(table.TakeNow(GetMany(q, 0), &taken));
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

TEST_CASE("a worker's batch in an item file is held mapped, read in place, its file let go with "
          "its last item; a batch sent to a queue gone lets its file go at once") {
  const ItemDirectory run("queuetabletest");
  auto budget = PeerBudget::Make({});
  QueueTable table(budget);
  table.UseItemFiles(run.master);
  const auto q = New(table);
  Told worker("w2");
  const std::string name = run.worker->Write("w2", fiber::wire::EncodeList({"x", "yy", "zzz"}));
  REQUIRE_FALSE(name.empty());
  table.Handle("w2", Ask(Op::kQueuePutManyFile, q, name), worker.answer(), t0);
  CHECK(worker.statuses() == std::vector<Status>{Status::kOk});
  CHECK(budget->Of("w2").bytes == 6 + 3 * kEach);
  CHECK(budget->Of("w2").mappings == 1);
  QueueTable::Taken first, rest;
  REQUIRE(table.TakeNow(GetMany(q, 2), &first));
  REQUIRE(table.TakeNow(GetMany(q, 2), &rest));
  CHECK(Items(first) == std::vector<std::string>{"x", "yy"});
  CHECK(Items(rest) == std::vector<std::string>{"zzz"});
  first = {};
  CHECK(::access((run.dir + "/" + name).c_str(), F_OK) == 0);  // "zzz" is still read from it
  rest = {};
  CHECK(::access((run.dir + "/" + name).c_str(), F_OK) != 0);
  CHECK(budget->Of("w2").bytes == 0);
  CHECK(budget->Of("w2").mappings == 0);
  // Another's file, or a queue gone.
  const std::string again = run.worker->Write("w2", fiber::wire::EncodeList({"a"}));
  table.Handle("w3", Ask(Op::kQueuePutManyFile, q, again), worker.answer(), t0);
  CHECK(worker.answers.back().first == Status::kRefused);
  table.Handle("w2", Ask(Op::kQueuePutManyFile, q + 7, again), worker.answer(), t0);
  CHECK(worker.answers.back().first == Status::kNoSuchObject);
  CHECK(::access((run.dir + "/" + again).c_str(), F_OK) != 0);
}

TEST_CASE("each item file a worker's put holds takes a mapping of the master's; past its bound the "
          "put is refused and its file let go") {
  const ItemDirectory run("queuetablemaps");
  auto budget = PeerBudget::Make({.mappings = 2, .all_mappings = 8});
  QueueTable table(budget);
  table.UseItemFiles(run.master);
  const auto q = New(table);
  Told worker("w2");
  std::vector<std::string> names;
  for (int i = 0; i < 3; ++i) {
    names.push_back(run.worker->Write("w2", std::string(16, 'x')));
    REQUIRE_FALSE(names.back().empty());
    table.Handle("w2", Ask(Op::kQueuePutFile, q, names.back()), worker.answer(), t0);
  }
  CHECK(worker.statuses() == std::vector<Status>{Status::kOk, Status::kOk, Status::kRefused});
  CHECK(worker.answers[2].second.find("it holds 2 item files (a mapping of the master's each) of the 2") !=
        std::string::npos);
  CHECK(::access((run.dir + "/" + names[2]).c_str(), F_OK) != 0);
  CHECK(table.items() == 2);
  CHECK(budget->Of("w2").mappings == 2);
  QueueTable::Taken taken;
  REQUIRE(table.TakeNow(Ask(Op::kQueueGet, q), &taken));
  taken = {};
  CHECK(budget->Of("w2").mappings == 1);
}
