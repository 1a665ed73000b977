// The frame layer of the protocol: what parses, and what is refused with a
// reason instead of being misread.
#include <doctest/doctest.h>

#include "wire/credentials.hpp"
#include "wire/message.hpp"

using namespace fiber::wire;

TEST_CASE("a header round-trips every message type") {
  for (int t = 1; t <= 9; ++t) {
    Header h;
    std::string err;
    REQUIRE(ParseHeader(MakeHeader(static_cast<Type>(t)), &h, &err));
    CHECK(static_cast<int>(h.type) == t);
    CHECK(h.version == kProtocolVersion);
  }
}

TEST_CASE("a foreign version still parses, so the master can refuse it by name") {
  Header h;
  std::string err;
  REQUIRE(ParseHeader(MakeHeader(Type::kHello, 7), &h, &err));
  CHECK(h.version == 7);
}

TEST_CASE("malformed headers are refused with the fault named") {
  Header h;
  std::string err;
  CHECK_FALSE(ParseHeader(zmq::message_t(), &h, &err));
  CHECK(err.find("0 bytes") != std::string::npos);
  CHECK_FALSE(ParseHeader(zmq::message_t(std::string("XY\x01")), &h, &err));
  CHECK_FALSE(ParseHeader(zmq::message_t(std::string("F\x01\x00", 3)), &h, &err));
  CHECK(err == "unknown message type 0");
  CHECK_FALSE(ParseHeader(zmq::message_t(std::string("F\x01\x0a", 3)), &h, &err));
  CHECK_FALSE(ParseHeader(zmq::message_t(std::string("F\x01\x01x", 4)), &h, &err));
}

TEST_CASE("integer frames check their length") {
  std::uint64_t v64 = 0;
  std::uint32_t v32 = 0;
  CHECK(ReadU64(U64Frame(0x0102030405060708ULL), &v64));
  CHECK(v64 == 0x0102030405060708ULL);
  CHECK(ReadU32(U32Frame(77), &v32));
  CHECK(v32 == 77);
  CHECK_FALSE(ReadU64(U32Frame(1), &v64));
  CHECK_FALSE(ReadU32(U64Frame(1), &v32));
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
