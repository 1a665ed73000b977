// The wire layer: what parses, and what is refused with a reason instead of
// being misread.
#include <doctest/doctest.h>

#include "wire/credentials.hpp"
#include "wire/message.hpp"
#include "wire/task_batch.hpp"

using namespace fiber::wire;

namespace {
zmq::message_t bytes(const std::string& s) { return zmq::message_t(s.data(), s.size()); }
}  // namespace

TEST_CASE("a header round-trips every message type") {
  for (int t = 1; t <= 9; ++t) {
    Header h;
    std::string err;
    REQUIRE(ParseHeader(Control(static_cast<Type>(t)), &h, &err));
    CHECK(static_cast<int>(h.type) == t);
    CHECK(h.version == kProtocolVersion);
  }
}

TEST_CASE("a foreign version still parses, so the master can refuse it by name") {
  Header h;
  std::string err;
  REQUIRE(ParseHeader(Writer(Type::kHello, 7).U64(1).Finish(), &h, &err));
  CHECK(h.version == 7);
}

TEST_CASE("malformed headers are refused with the fault named") {
  Header h;
  std::string err;
  CHECK_FALSE(ParseHeader(zmq::message_t(), &h, &err));
  CHECK(err.find("0 bytes") != std::string::npos);
  CHECK_FALSE(ParseHeader(bytes("XY\x01"), &h, &err));
  CHECK_FALSE(ParseHeader(bytes(std::string("F\x01", 2)), &h, &err));
  CHECK_FALSE(ParseHeader(bytes(std::string("F\x01\x00", 3)), &h, &err));
  CHECK(err == "unknown message type 0");
  CHECK_FALSE(ParseHeader(bytes(std::string("F\x01\x0a", 3)), &h, &err));
}

TEST_CASE("fields round-trip, and a short message fails the read that overruns it") {
  const auto m = Writer(Type::kWelcome).U8(9).U32(77).U64(0x0102030405060708ULL).Bytes("abc").Rest("tail").Finish();
  Reader r(m);
  std::uint8_t u8 = 0;
  std::uint32_t u32 = 0;
  std::uint64_t u64 = 0;
  std::string_view s;
  CHECK(r.U8(&u8));
  CHECK(r.U32(&u32));
  CHECK(r.U64(&u64));
  CHECK(r.Bytes(&s));
  CHECK(u8 == 9);
  CHECK(u32 == 77);
  CHECK(u64 == 0x0102030405060708ULL);
  CHECK(s == "abc");
  CHECK(r.Rest() == "tail");
  CHECK(r.AtEnd());
  CHECK_FALSE(r.U8(&u8));

  // A length that promises more than the message holds.
  const auto liar = Writer(Type::kResult).U32(1000).Rest("short").Finish();
  Reader l(liar);
  CHECK_FALSE(l.Bytes(&s));
  const auto truncated = Writer(Type::kReady).U8(1).Finish();
  Reader t(truncated);
  CHECK_FALSE(t.U32(&u32));
}

TEST_CASE("tasks and results travel several to a message") {
  Writer tasks(Type::kTask);
  AppendTask(tasks, 7, "square", {"a", "bb"});
  AppendTask(tasks, 8, "add", {std::string(5 << 20, 'x')});
  const auto m = tasks.Finish();
  std::vector<TaskView> read;
  std::string err;
  REQUIRE(ReadTasks(m, &read, &err));
  REQUIRE(read.size() == 2);
  CHECK(read[0].id == 7);
  CHECK(read[0].function == "square");
  CHECK(read[0].calls == std::vector<std::string_view>{"a", "bb"});
  CHECK(read[1].calls[0].size() == (5u << 20));

  Writer results(Type::kResult);
  results.U32(12);
  AppendResultHead(results, 7, 2);
  AppendOutcome(results, 0, "A");
  AppendOutcome(results, 1, "std::invalid_argument\nbad");
  const auto r = results.Finish();
  std::uint32_t credit = 0;
  std::vector<ResultView> outs;
  REQUIRE(ReadResults(r, &credit, &outs, &err));
  CHECK(credit == 12);
  REQUIRE(outs.size() == 1);
  CHECK(outs[0].id == 7);
  REQUIRE(outs[0].outcomes.size() == 2);
  CHECK(outs[0].outcomes[1].kind == 1);
  CHECK(outs[0].outcomes[1].data == "std::invalid_argument\nbad");
}

TEST_CASE("a task batch that lies about its counts is refused, not trusted") {
  std::string err;
  std::vector<TaskView> tasks;
  // Claims four billion calls and holds one.
  CHECK_FALSE(ReadTasks(Writer(Type::kTask).U64(1).Bytes("f").U32(0xffffffffu).Bytes("x").Finish(),
                        &tasks, &err));
  CHECK(err.find("task 1") != std::string::npos);
  CHECK_FALSE(ReadTasks(Writer(Type::kTask).U64(1).Finish(), &tasks, &err));
  std::uint32_t credit;
  std::vector<ResultView> results;
  CHECK_FALSE(ReadResults(Writer(Type::kResult).Finish(), &credit, &results, &err));
  CHECK(err == "a RESULT message without a credit");
  CHECK_FALSE(ReadResults(Writer(Type::kResult).U32(1).U64(3).U32(2).U8(0).Bytes("ok").Finish(),
                          &credit, &results, &err));
  CHECK(err.find("outcomes of task 3") != std::string::npos);
}

TEST_CASE("run credentials are fresh, well-formed and consistent") {
  Credentials a, b;
  std::string err;
  REQUIRE(Credentials::Generate(&a, &err));
  REQUIRE(Credentials::Generate(&b, &err));
  CHECK(a.client_secret != b.client_secret);
  CHECK(IsZ85Key(a.server_public));
  std::string pub;
  REQUIRE(PublicKeyOf(a.client_secret, &pub));
  CHECK(pub == a.client_public);
  CHECK_FALSE(PublicKeyOf("not a key", &pub));
  CHECK_FALSE(IsZ85Key(std::string(40, ' ')));
}

TEST_CASE("a key with a character outside Z85 is refused, even a NUL that libzmq would stop at") {
  Credentials c;
  std::string err;
  REQUIRE(Credentials::Generate(&c, &err));
  std::string with_nul = c.client_secret;
  with_nul[35] = '\0';  // libzmq would decode the 35 characters before it
  CHECK_FALSE(IsZ85Key(with_nul));
  std::string pub;
  CHECK_FALSE(PublicKeyOf(with_nul, &pub));
  for (char bad : {'\0', ' ', '"', '\'', ',', ';', '_', '`', '|', '~', '\x80'}) {
    std::string key = c.server_public;
    key[7] = bad;
    CHECK_FALSE(IsZ85Key(key));
  }
}
