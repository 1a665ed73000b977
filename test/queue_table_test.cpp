// The master's table of queues without sockets or processes: what a
// worker may make them hold (its bytes, its queues, its item files), items
// held in place (in a put's body or its item file) until the last is let
// go, and the master's own gets taking them at once, driven with answers
// that record what they were told and a clock of our own. How one queue
// serves its waits: held_queue_test.cpp.
#include <doctest/doctest.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "master/queue_table.hpp"
#include "wire/item_directory.hpp"
#include "wire/item_files.hpp"
#include "wire/limits.hpp"
#include "support/queue_asks.hpp"
#include "support/told.hpp"

using fiber::master::PeerBudget;
using fiber::master::QueueTable;
using fiber::wire::Op;
using fiber::wire::Status;

namespace {

// What the master charges for each item beside its bytes.
constexpr std::size_t kEach = fiber::wire::kHeldOverheadBytes;

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

}  // namespace

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
