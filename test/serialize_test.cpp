// Task arguments and results: cereal's binary format, read back as hostile
// input: every length checked against the bytes that are really there,
// every bool 0 or 1, and allocation held to a budget the input's size sets.
#include <doctest/doctest.h>

#include <fiber/fiber.hpp>

#include <cereal/archives/binary.hpp>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <sstream>
#include <utility>

#include "tasks.hpp"

using fiber::detail::from_bytes;
using fiber::detail::InputArchive;
using fiber::detail::to_bytes;

// Every allocation of this executable goes through here, so a test can
// measure what decoding asked for on its own thread. (Not inlined: GCC
// would otherwise see free() meet a pointer from new.)
namespace {
thread_local bool metering = false;
thread_local std::size_t metered = 0;
}  // namespace
[[gnu::noinline]] void* operator new(std::size_t n) {
  if (metering) metered += n;
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
[[gnu::noinline]] void operator delete(void* p) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace {
/// Bytes requested from operator new on this thread while fn runs.
template <class F>
std::size_t allocated_by(F&& fn) {
  metered = 0;
  metering = true;
  fn();
  metering = false;
  return metered;
}

/// What the header promises decoding `bytes` input bytes may allocate.
std::size_t allocation_bound(std::size_t bytes) {
  return InputArchive::kAllocationPerByte * bytes + InputArchive::kAllocationSlack;
}

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

/// Decodes the encoding of value back, within the allocation the header
/// promises.
template <class T>
void check_round_trip(const T& value) {
  const std::string bytes = to_bytes(value);
  T back;
  const std::size_t allocated = allocated_by([&] { back = from_bytes<T>(bytes); });
  INFO(bytes.size(), " bytes allocated ", allocated);
  CHECK(back == value);
  CHECK(allocated <= allocation_bound(bytes.size()));
}

/// Throws before allocating more than a few MiB, whatever the bytes promise.
template <class T>
void check_refused_cheaply(const std::string& bytes) {
  const std::size_t allocated = allocated_by(
      [&] { CHECK_THROWS_WITH_AS(from_bytes<T>(bytes), doctest::Contains("more memory"), cereal::Exception); });
  CHECK(allocated < allocation_bound(bytes.size()));
  CHECK(allocated < (std::size_t{64} << 20));
}

/// Structs whose encoding takes no bytes at all: one with a serialize
/// member, one without (cereal elides empty classes).
struct Empty {};
struct Nothing {
  template <class Archive>
  void serialize(Archive&) {}
};

Tree chain(int depth) {
  Tree t;
  for (int i = 0; i < depth; ++i) t = Tree{{std::move(t)}};
  return t;
}
}  // namespace

TEST_CASE("values are written in cereal's own binary layout") {
  const Particle p{"proton", {1.0, 2.5}, 1};
  CHECK(to_bytes(p) == cereal_binary(p));
  const auto t = std::make_tuple(std::string("x"), std::vector<int>{1, 2}, std::map<int, bool>{{3, true}});
  CHECK(to_bytes(t) == cereal_binary(t));
  CHECK(from_bytes<Particle>(cereal_binary(p)) == p);
}

TEST_CASE("strings and vectors of numbers, written without an archive, are cereal's bytes") {
  const std::string text("a\0b", 3);
  CHECK(to_bytes(text) == cereal_binary(text));
  CHECK(to_bytes(std::string()) == cereal_binary(std::string()));
  const std::vector<float> floats{1.5f, -2.0f, 3.25f};
  CHECK(to_bytes(floats) == cereal_binary(floats));
  const std::vector<std::uint8_t> none;
  CHECK(to_bytes(none) == cereal_binary(none));
  const std::vector<char> chars{'x', '\0', 'y'};
  CHECK(to_bytes(chars) == cereal_binary(chars));
  CHECK(from_bytes<std::vector<char>>(to_bytes(chars)) == chars);
  CHECK(from_bytes<std::string>(cereal_binary(text)) == text);
  CHECK(from_bytes<std::vector<float>>(cereal_binary(floats)) == floats);
  CHECK(from_bytes<std::vector<std::uint8_t>>(cereal_binary(none)).empty());
  // Inside other values they go through the archive, the same bytes.
  const auto pair = std::make_pair(text, floats);
  CHECK(from_bytes<std::pair<std::string, std::vector<float>>>(to_bytes(pair)) == pair);
  CHECK_THROWS_WITH_AS(from_bytes<std::vector<float>>(to_bytes(floats) + "x"),
                       doctest::Contains("1 bytes left over"), cereal::Exception);
  CHECK_THROWS_WITH_AS(from_bytes<std::string>(std::string_view("abc")), doctest::Contains("5 bytes short"),
                       cereal::Exception);
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

TEST_CASE("a bool byte other than 0 or 1 is refused, wherever the bool is") {
  CHECK(from_bytes<bool>(std::string(1, '\1')) == true);
  CHECK(from_bytes<bool>(std::string(1, '\0')) == false);
  CHECK_THROWS_WITH_AS(from_bytes<bool>(std::string(1, '\2')), doctest::Contains("a bool of 2, not 0 or 1"),
                       cereal::Exception);
  // std::optional's leading flag says whether a value follows.
  CHECK_THROWS_AS(from_bytes<std::optional<int>>(std::string(1, '\x80') + "abcd"), cereal::Exception);
  CHECK(from_bytes<std::optional<int>>(to_bytes(std::optional<int>(7))) == 7);
  // std::vector<bool> reads one byte per element.
  CHECK_THROWS_AS(from_bytes<std::vector<bool>>(length_prefix(3) + std::string("\1\0\7", 3)),
                  cereal::Exception);
  CHECK(from_bytes<std::vector<bool>>(length_prefix(3) + std::string("\1\0\1", 3)) ==
        std::vector<bool>{true, false, true});
  // An argument tuple such as summarize's std::tuple<int, bool>.
  CHECK_THROWS_AS((from_bytes<std::tuple<int, bool>>(to_bytes(5) + "\xff")), cereal::Exception);
  // std::array<bool, N> is read as one block of bytes.
  CHECK_THROWS_AS((from_bytes<std::array<bool, 3>>(std::string("\0\1\3", 3))), cereal::Exception);
}

TEST_CASE("elements that take no bytes cannot make a few KB ask for gigabytes") {
  using Huge = std::array<std::tuple<>, 1 << 20>;  // 1 MiB in memory, nothing on the wire
  // 4096 elements of 1 MiB (4 GiB) promised in 4 KB.
  const std::string vector_of_huge = length_prefix(4096) + std::string(4096, '\0');
  check_refused_cheaply<std::vector<Huge>>(vector_of_huge);
  check_refused_cheaply<std::vector<std::array<Nothing, 1 << 20>>>(vector_of_huge);
  check_refused_cheaply<std::vector<std::vector<Huge>>>(length_prefix(1) + vector_of_huge);
  // 20000 vectors each promising the bytes left in elements of one byte:
  // 1.6 GB in total from 160 KB.
  std::string nested = length_prefix(20000);
  for (std::uint64_t i = 20000; i-- > 0;) nested += length_prefix(8 * i);
  check_refused_cheaply<std::vector<std::vector<std::tuple<>>>>(nested);
  check_refused_cheaply<std::vector<std::vector<Nothing>>>(nested);
  check_refused_cheaply<std::vector<std::vector<Empty>>>(nested);
  // A map node for each 4-byte key: 1 GiB in 4 KB.
  std::string map_of_huge = length_prefix(1024);
  for (int key = 0; key < 1024; ++key) map_of_huge += to_bytes(key);
  check_refused_cheaply<std::map<int, Huge>>(map_of_huge);
  check_refused_cheaply<std::unordered_map<int, Huge>>(map_of_huge);
}

// Found by payload_fuzz (corpus/payload/empties_then_trailing_bytes): a
// length above the bytes left was refused even for elements of no bytes.
TEST_CASE("a vector of elements that take no bytes decodes, even as the last value") {
  check_round_trip(std::tuple<int, std::vector<std::tuple<>>>(5, std::vector<std::tuple<>>(3)));
  CHECK(from_bytes<std::vector<Nothing>>(to_bytes(std::vector<Nothing>(1000))).size() == 1000);
  CHECK(from_bytes<std::vector<std::array<std::tuple<>, 1 << 20>>>(length_prefix(1)).size() == 1);
}

TEST_CASE("bytes left over after the value are refused, as written for another type") {
  CHECK_THROWS_WITH_AS(from_bytes<int>(to_bytes(1) + to_bytes(2)), doctest::Contains("4 bytes left over"),
                       cereal::Exception);
  CHECK_THROWS_AS(from_bytes<std::tuple<int>>(to_bytes(std::tuple<int, int>(1, 2))), cereal::Exception);
}

TEST_CASE("payloads of many megabytes still decode") {
  check_round_trip(std::string(100 << 20, 'x'));
  check_round_trip(std::vector<double>(100 << 17, 2.5));  // 100 MiB
  check_round_trip(std::vector<std::string>(1 << 20, "ab"));
  check_round_trip(std::vector<std::vector<int>>(1 << 18, std::vector<int>{1, 2}));
  std::map<int, std::string> map;
  std::unordered_map<std::string, double> unordered;
  for (int i = 0; i < (1 << 18); ++i) {
    map[i] = "v";
    unordered[std::to_string(i)] = i;
  }
  check_round_trip(map);
  check_round_trip(unordered);
  check_round_trip(std::vector<Particle>(1 << 18, Particle{"p", {1.0}, std::nullopt}));
  // The fattest element per byte of the supported types: 40 bytes in memory
  // for each 1-byte "empty" flag.
  check_round_trip(std::vector<std::optional<std::string>>(4 << 20));
  check_round_trip(std::vector<std::optional<Particle>>(1 << 20));
}

TEST_CASE("a recursive type decodes to a reasonable depth and no deeper") {
  check_round_trip(chain(InputArchive::kMaxNesting - 1));
  std::string deep;
  for (int i = 0; i < 100000; ++i) deep += length_prefix(1);
  deep += length_prefix(0);
  CHECK_THROWS_WITH_AS(from_bytes<Tree>(deep), doctest::Contains("nested more than"), cereal::Exception);
}
