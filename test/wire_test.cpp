// The wire layer: what parses, and what is refused with a reason instead of
// being misread.
#include <doctest/doctest.h>

#include "wire/codec.hpp"
#include "wire/credentials.hpp"
#include "wire/frames.hpp"
#include "wire/limits.hpp"
#include "wire/message.hpp"
#include "wire/request.hpp"
#include "wire/task_batch.hpp"

using namespace fiber::wire;

namespace {
zmq::message_t bytes(const std::string& s) { return zmq::message_t(s.data(), s.size()); }
}  // namespace

TEST_CASE("a header round-trips every message type and its channel") {
  for (int t = 1; t <= kLastType; ++t) {
    Header h;
    std::string err;
    REQUIRE(ParseHeader(EncodeControl(static_cast<Type>(t), 77), &h, &err));
    CHECK(static_cast<int>(h.type) == t);
    CHECK(h.version == kProtocolVersion);
    CHECK(h.channel == 77);
  }
}

TEST_CASE("a foreign version still parses, so the master can refuse it by name") {
  Header h;
  std::string err;
  REQUIRE(ParseHeader(Writer(Type::kHello, kRunChannel, 7).U64(1).Finish(), &h, &err));
  CHECK(h.version == 7);
}

TEST_CASE("malformed headers are refused with the fault named") {
  Header h;
  std::string err;
  CHECK_FALSE(ParseHeader(zmq::message_t(), &h, &err));
  CHECK(err.find("0 bytes") != std::string::npos);
  CHECK_FALSE(ParseHeader(bytes("XY\x01"), &h, &err));
  CHECK_FALSE(ParseHeader(bytes(std::string("F\x01", 2)), &h, &err));
  CHECK_FALSE(ParseHeader(bytes(std::string("F\x03\x00\0\0\0\0", 7)), &h, &err));
  CHECK(err == "unknown message type 0");
  std::string past_last("F\x03\0\0\0\0\0", 7);
  past_last[2] = static_cast<char>(kLastType + 1);
  CHECK_FALSE(ParseHeader(bytes(past_last), &h, &err));
  CHECK_FALSE(ParseHeader(bytes(std::string("F\x03\x01\0\0\0", 6)), &h, &err));
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

TEST_CASE("run credentials are fresh, well-formed and consistent") {
  Credentials a, b;
  std::string err;
  REQUIRE(Credentials::Generate(&a, &err));
  REQUIRE(Credentials::Generate(&b, &err));
  CHECK(a.client_secret != b.client_secret);
  CHECK(a.server_public != b.server_public);
  CHECK(IsZ85Key(a.server_public));
  CHECK(a.server_public != a.client_public);
  std::string pub;
  REQUIRE(PublicKeyOf(a.client_secret, &pub));
  CHECK(pub == a.client_public);
  REQUIRE(PublicKeyOf(a.server_secret, &pub));
  CHECK(pub == a.server_public);
  // A worker, holding only the client key, derives the master's keys alike.
  Credentials again;
  REQUIRE(Credentials::FromClientKey(a.client_secret, &again, &err));
  CHECK(again.server_public == a.server_public);
  CHECK(again.server_secret == a.server_secret);
  CHECK_FALSE(Credentials::FromClientKey("not a key", &again, &err));
  CHECK(err.find("not a CURVE secret key") != std::string::npos);
  CHECK_FALSE(PublicKeyOf("not a key", &pub));
  CHECK_FALSE(IsZ85Key(std::string(40, ' ')));
}

TEST_CASE("every small message round-trips through the one codec") {
  std::string err;
  Hello hello;
  REQUIRE(Decode(Encode(Hello{4242}), &hello, &err));
  CHECK(hello.pid == 4242);
  const auto welcome_message = Encode(Welcome{5, 7, "init", "args"});
  Welcome welcome;
  REQUIRE(Decode(welcome_message, &welcome, &err));
  CHECK(welcome.channel == 5);
  CHECK(welcome.prefetch == 7);
  CHECK(welcome.init_function == "init");
  CHECK(welcome.init_args == "args");
  CHECK_FALSE(welcome.results_at_once);
  REQUIRE(Decode(Encode(Welcome{5, 7, "", "", true}), &welcome, &err));
  CHECK(welcome.results_at_once);
  Revoke revoke;
  REQUIRE(Decode(Encode(Revoke{{3, 1ull << 40}}, 5), &revoke, &err));
  CHECK(revoke.ids == std::vector<std::uint64_t>{3, 1ull << 40});
  const auto refuse_message = Encode(Refuse{"go away"}, 9);
  Refuse refuse;
  REQUIRE(Decode(refuse_message, &refuse, &err));
  CHECK(refuse.reason == "go away");
  Ready ready;
  REQUIRE(Decode(Encode(Ready{3}, 5), &ready, &err));
  CHECK(ready.credit == 3);
  const auto failed_message = Encode(InitFailed{{"std::runtime_error", "no"}}, 5);
  InitFailed failed;
  REQUIRE(Decode(failed_message, &failed, &err));
  CHECK(failed.error.type == "std::runtime_error");
  CHECK(failed.error.message == "no");
}

TEST_CASE("the codec refuses a wrong type, a short or long body, and credits out of range") {
  std::string err;
  Hello hello;
  CHECK_FALSE(Decode(Encode(Ready{3}, 5), &hello, &err));
  CHECK(err == "a READY where HELLO was expected");
  CHECK_FALSE(Decode(Writer(Type::kHello).U32(1).Finish(), &hello, &err));
  CHECK(err == "a malformed HELLO");
  CHECK_FALSE(Decode(Writer(Type::kHello).U64(1).U8(0).Finish(), &hello, &err));
  Ready ready;
  CHECK_FALSE(Decode(Encode(Ready{0}, 5), &ready, &err));
  CHECK_FALSE(Decode(Encode(Ready{kMaxCredit + 1}, 5), &ready, &err));
  CHECK(Decode(Encode(Ready{kMaxCredit}, 5), &ready, &err));
  Welcome welcome;
  CHECK_FALSE(Decode(Encode(Welcome{5, kMaxCredit + 1, "", ""}), &welcome, &err));
  CHECK_FALSE(Decode(Encode(Welcome{kRunChannel, 1, "", ""}), &welcome, &err));
  InitFailed failed;
  CHECK_FALSE(Decode(Writer(Type::kInitFailed, 5).Bytes("only a type").Finish(), &failed, &err));
  Revoke revoke;
  CHECK_FALSE(Decode(Writer(Type::kRevoke, 5).U64(1).U32(2).Finish(), &revoke, &err));
  CHECK(err == "a malformed REVOKE");
}

TEST_CASE("a message larger than a frame crosses a socket in pieces and arrives whole") {
  zmq::context_t ctx;
  zmq::socket_t a(ctx, zmq::socket_type::pair), b(ctx, zmq::socket_type::pair);
  LimitFrames(a);
  LimitFrames(b);
  a.bind("inproc://frames");
  b.connect("inproc://frames");
  std::string big(3 * kMaxFrameBytes + 12345, 'x');
  for (std::size_t i = 0; i < big.size(); i += 4099) big[i] = static_cast<char>(i);
  REQUIRE(SendMessage(a, {}, zmq::message_t(big.data(), big.size())));
  zmq::message_t got;
  std::string err;
  REQUIRE(ReceiveMessage(b, false, nullptr, &got, &err) == Receipt::kMessage);
  CHECK(got.to_string() == big);
  // Pieces of any other size are refused.
  zmq::message_t first(std::string(10, 'a')), second(std::string(10, 'b'));
  (void)a.send(first, zmq::send_flags::sndmore);
  (void)a.send(second, zmq::send_flags::none);
  CHECK(ReceiveMessage(b, false, nullptr, &got, &err) == Receipt::kMalformed);
  CHECK(err.find("frame 1 holds 10 bytes") != std::string::npos);
}

TEST_CASE("a socket of the run queues a worker's whole credit and every request in flight, but not without end") {
  zmq::context_t ctx;
  zmq::socket_t a(ctx, zmq::socket_type::pair), b(ctx, zmq::socket_type::pair);
  LimitFrames(a);
  LimitFrames(b);
  a.bind("inproc://hwm");
  b.connect("inproc://hwm");
  // b reads nothing: what a queues for it is bounded by the high-water marks.
  std::size_t queued = 0;
  while (queued < 100000 && SendMessage(a, {}, zmq::message_t(std::string("m")))) ++queued;
  CHECK(queued >= kMaxCredit + kMaxPeerRequests);
  CHECK(queued < 100000);
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

TEST_CASE("REQUEST and REPLY round-trip; an unknown op or status is malformed") {
  Request request;
  request.id = 9;
  request.op = Op::kQueueGet;
  request.object = 4;
  request.timeout_ms = 250;
  request.body = std::string("item\0bytes", 10);
  Request got;
  std::string err;
  REQUIRE(Decode(Encode(request), &got, &err));
  CHECK(got.id == 9);
  CHECK(got.op == Op::kQueueGet);
  CHECK(got.object == 4);
  CHECK(got.timeout_ms == 250u);
  CHECK(got.body == request.body);
  request.timeout_ms.reset();
  REQUIRE(Decode(Encode(request), &got, &err));
  CHECK_FALSE(got.timeout_ms.has_value());
  CHECK_FALSE(Decode(Writer(Type::kRequest).U64(1).U8(kLastOp + 1).U64(0).U32(0).Finish(), &got, &err));
  CHECK(err == "a malformed REQUEST");

  Reply reply{7, Status::kRaised, EncodePair("std::invalid_argument", "no")};
  Reply back;
  REQUIRE(Decode(Encode(reply), &back, &err));
  CHECK(back.id == 7);
  CHECK(back.status == Status::kRaised);
  std::string type, message;
  REQUIRE(DecodePair(back.body, &type, &message));
  CHECK(type == "std::invalid_argument");
  CHECK(message == "no");
  CHECK_FALSE(DecodePair(std::string("\xff\0\0\0ab", 6), &type, &message));
  CHECK_FALSE(Decode(Writer(Type::kReply).U64(1).U8(kLastStatus + 1).Finish(), &back, &err));
}

TEST_CASE("manager calls sent together, and their answers, round-trip in order; a malformed answer list is refused") {
  Request a, b;
  a.id = 3;
  a.body = EncodePair("fn", "args of a");
  b.id = 4;
  b.body = EncodePair("fn", std::string("b\0", 2));
  std::string batch = EncodeCalls({&a, &b});
  std::vector<CallView> calls;
  REQUIRE(DecodeCalls(batch, &calls));
  REQUIRE(calls.size() == 2);
  CHECK(calls[0].id == 3);
  CHECK(calls[0].body == a.body);
  CHECK(calls[1].id == 4);
  CHECK(calls[1].body == b.body);

  std::string body;
  AppendReply(&body, 3, Status::kOk, "three");
  AppendReply(&body, 4, Status::kRaised, EncodePair("E", "no"));
  std::vector<Reply> replies;
  REQUIRE(DecodeReplies(body, &replies));
  REQUIRE(replies.size() == 2);
  CHECK(replies[0].id == 3);
  CHECK(replies[0].status == Status::kOk);
  CHECK(replies[0].body == "three");
  CHECK(replies[1].id == 4);
  CHECK(replies[1].status == Status::kRaised);
  CHECK_FALSE(DecodeReplies(body.substr(0, body.size() - 1), &replies));  // cut short
  std::string bad;
  AppendReply(&bad, 5, static_cast<Status>(kLastStatus + 1), "");
  CHECK_FALSE(DecodeReplies(bad, &replies));
  batch = std::string("\2\0\0\0ab", 6);  // an item too short for its id
  CHECK_FALSE(DecodeCalls(batch, &calls));
}

TEST_CASE("a batch of more calls than a caller may have in flight is refused before any is decoded") {
  std::vector<Request> many(kMaxCallsInFlight + 1);
  std::vector<const Request*> each;
  for (const Request& call : many) each.push_back(&call);
  std::vector<CallView> calls;
  CHECK_FALSE(DecodeCalls(EncodeCalls(each), &calls));
  CHECK(calls.empty());
  each.pop_back();
  const std::string batch = EncodeCalls(each);
  REQUIRE(DecodeCalls(batch, &calls));
  CHECK(calls.size() == kMaxCallsInFlight);
  std::string replies;
  for (std::size_t i = 0; i <= kMaxCallsInFlight; ++i) AppendReply(&replies, i, Status::kOk, "");
  std::vector<Reply> answers;
  CHECK_FALSE(DecodeReplies(replies, &answers));
}
