// Task arguments and results: cereal's binary format, read back with every
// length checked against the bytes that are really there.
#include <doctest/doctest.h>

#include <fiber/fiber.hpp>

#include <cereal/archives/binary.hpp>
#include <sstream>

#include "tasks.hpp"

using fiber::detail::from_bytes;
using fiber::detail::to_bytes;

namespace {
template <class T>
std::string cereal_binary(const T& value) {
  std::ostringstream out;
  {
    cereal::BinaryOutputArchive archive(out);
    archive(value);
  }
  return out.str();
}

std::string length_prefix(std::uint64_t n) { return std::string(reinterpret_cast<char*>(&n), 8); }
}  // namespace

TEST_CASE("values are written in cereal's own binary layout") {
  const Particle p{"proton", {1.0, 2.5}, 1};
  CHECK(to_bytes(p) == cereal_binary(p));
  const auto t = std::make_tuple(std::string("x"), std::vector<int>{1, 2}, std::map<int, bool>{{3, true}});
  CHECK(to_bytes(t) == cereal_binary(t));
  CHECK(from_bytes<Particle>(cereal_binary(p)) == p);
}

TEST_CASE("a length larger than the bytes left is refused before anything is allocated") {
  // 16 GiB promised, three bytes given: the stock reader would allocate first.
  const std::string lie = length_prefix(std::uint64_t{1} << 34) + "abc";
  CHECK_THROWS_WITH_AS(from_bytes<std::string>(lie), doctest::Contains("a length of 17179869184"),
                       cereal::Exception);
  CHECK_THROWS_AS(from_bytes<std::vector<double>>(lie), cereal::Exception);
  using IntMap = std::map<int, int>;
  CHECK_THROWS_AS(from_bytes<IntMap>(lie), cereal::Exception);
  CHECK(from_bytes<std::string>(length_prefix(3) + "abc") == "abc");
}

TEST_CASE("bytes that end early are refused, not read past") {
  const std::string bytes = to_bytes(std::vector<std::int64_t>{1, 2, 3});
  CHECK_THROWS_WITH_AS(from_bytes<std::vector<std::int64_t>>(bytes.substr(0, bytes.size() - 1)),
                       doctest::Contains("short"), cereal::Exception);
  CHECK_THROWS_AS(from_bytes<int>(std::string_view("ab")), cereal::Exception);
}

TEST_CASE("a result that does not decode is a fiber::Error naming the cause") {
  fiber::detail::Outcome outcome{fiber::detail::Outcome::Kind::kValue, length_prefix(1u << 30), {}};
  CHECK_THROWS_WITH_AS(fiber::detail::decode<std::string>(outcome),
                       doctest::Contains("does not decode"), fiber::Error);
}
