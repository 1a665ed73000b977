// The master's shared values without sockets or processes: the bytes are
// readable in place through /proc by name, a value lives while a peer holds
// it or a handle is on its way, a peer gone holds nothing, and what a
// worker (and all workers together) may make the master hold: bytes, and
// the descriptor each value keeps open.
#include <doctest/doctest.h>
#include <unistd.h>

#include <string>

#include "master/share_table.hpp"
#include "os/sealed_memfd.hpp"
#include "wire/limits.hpp"
#include "support/told.hpp"

using fiber::master::PeerBudget;
using fiber::master::ShareTable;
using fiber::wire::Op;
using fiber::wire::Request;
using fiber::wire::SharedPlace;
using fiber::wire::Status;

namespace {

void Tell(ShareTable& table, Told& who, Op op, std::uint64_t id, std::string body = {}) {
  Request r = Ask(op, id, std::move(body));
  table.Handle(who.peer, r, who.answer());
}

SharedPlace New(ShareTable& table, Told& who, const std::string& bytes) {
  Tell(table, who, Op::kShareNew, 0, bytes);
  SharedPlace place;
  REQUIRE(who.answers.back().first == Status::kOk);
  REQUIRE(fiber::wire::Decode(who.answers.back().second, &place));
  return place;
}

std::uint64_t Token(ShareTable& table, Told& who, std::uint64_t id) {
  Tell(table, who, Op::kShareSend, id);
  std::uint64_t token = 0;
  REQUIRE(fiber::wire::DecodeU64(who.answers.back().second, &token));
  return token;
}

ShareTable Table(fiber::wire::PeerLimits limits = {}) { return ShareTable(PeerBudget::Make(limits)); }

}  // namespace

TEST_CASE("a value's bytes are read in place through /proc, checked by name and size") {
  ShareTable table = Table();
  Told master;
  const SharedPlace place = New(table, master, "weights");
  CHECK(place.pid == static_cast<std::uint64_t>(::getpid()));
  fiber::os::SealedMemfd memory;
  std::string why;
  const std::string name = fiber::wire::SharedMemoryName(place.key, place.id);
  REQUIRE(fiber::os::SealedMemfd::OpenOf(place.pid, place.fd, name, 7, &memory, &why));
  CHECK(memory.bytes() == "weights");
  CHECK_FALSE(fiber::os::SealedMemfd::OpenOf(place.pid, place.fd, name + "x", 7, &memory, &why));
  CHECK(why.find("not the master's shared memory") != std::string::npos);
  CHECK_FALSE(fiber::os::SealedMemfd::OpenOf(place.pid, place.fd, name, 8, &memory, &why));
  Told w1("w1");
  Tell(table, w1, Op::kShareGet, place.id);
  CHECK(w1.answers.back() == std::make_pair(Status::kOk, std::string("weights")));
}

TEST_CASE("a value lives while a peer holds it or a handle is on its way") {
  ShareTable table = Table();
  Told master, w1("w1"), w2("w2");
  const std::uint64_t id = New(table, master, "v").id;
  const std::uint64_t token = Token(table, master, id);
  Tell(table, master, Op::kShareRelease, id);
  CHECK(table.values() == 1);  // the token keeps it
  Tell(table, w1, Op::kShareClaim, id, fiber::wire::EncodeClaim(token, true));
  Tell(table, w2, Op::kShareClaim, id, fiber::wire::EncodeClaim(token, true));  // decoded twice
  Tell(table, w1, Op::kShareRelease, id);
  CHECK(table.values() == 1);  // w2 holds it
  CHECK(table.Holders() == std::vector<std::string>{"w2"});
  table.ReleaseHeldBy("w2");  // gone
  CHECK(table.values() == 0);
  Tell(table, w1, Op::kShareGet, id);
  CHECK(w1.answers.back().first == Status::kNoSuchObject);
  CHECK(w1.answers.back().second.find("was freed") != std::string::npos);
  Tell(table, w1, Op::kShareSend, 99);
  CHECK(w1.answers.back().second.find("does not exist") != std::string::npos);
}

TEST_CASE("a worker may make the master hold only so many bytes of values") {
  ShareTable table = Table({.requests = 10, .bytes = 100, .objects = 10});
  Told w1("w1"), master;
  Tell(table, w1, Op::kShareNew, 0, std::string(101, 'x'));
  CHECK(w1.answers.back().first == Status::kRefused);
  CHECK(table.values() == 0);
  New(table, master, std::string(1000, 'x'));  // the master's own are not bounded
  CHECK(table.bytes() == 1000);
  Tell(table, w1, Op::kShareNew, 0, std::string(100 - fiber::wire::kHeldOverheadBytes, 'x'));
  CHECK(w1.answers.back().first == Status::kOk);  // its bytes and what holding it costs
  Tell(table, w1, Op::kShareNew, 0, "");
  CHECK(w1.answers.back().first == Status::kRefused);  // an empty value costs that too
}

TEST_CASE("each value a worker shares keeps a descriptor of the master's: past its bound, or all "
          "workers' together, a share is refused by name, and a value freed gives room back") {
  ShareTable table = Table({.descriptors = 2, .all_descriptors = 8});
  Told master, w[5] = {Told("w0"), Told("w1"), Told("w2"), Told("w3"), Told("w4")};
  const std::uint64_t first = New(table, w[0], "a").id;
  New(table, w[0], "b");
  Tell(table, w[0], Op::kShareNew, 0, "c");
  CHECK(w[0].answers.back().first == Status::kRefused);
  CHECK(w[0].answers.back().second ==
        "cannot share it: refused: it holds 2 shared values (a descriptor of the master's each) "
        "of the 2 a worker may (wire/limits.hpp) and asked for 1 more");
  for (int i = 1; i < 4; ++i) {
    New(table, w[i], "d");
    New(table, w[i], "e");
  }
  Tell(table, w[4], Op::kShareNew, 0, "f");
  CHECK(w[4].answers.back().first == Status::kRefused);
  CHECK(w[4].answers.back().second.find("the run's workers hold 8 shared values (a descriptor of "
                                        "the master's each) of the 8 they may together") !=
        std::string::npos);
  for (int i = 0; i < 4; ++i) New(table, master, "m");  // the master's own are not bounded
  CHECK(table.values() == 12);
  Tell(table, w[0], Op::kShareRelease, first);  // freed: its descriptor closed
  CHECK(table.values() == 11);
  New(table, w[4], "f");
}
