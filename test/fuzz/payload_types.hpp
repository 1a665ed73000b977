// The types payload_fuzz decodes: between them bool, std::optional,
// std::vector<bool>, std::tuple<>, nested containers, maps, strings, user
// structs, a recursive one, and a string and a vector of numbers alone (read
// without an archive). A fuzz input's first byte picks one.
#pragma once

#include <fiber/serialize.hpp>

#include <cstddef>
#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>

#include "tasks.hpp"  // Tree

namespace fiber::fuzz {

/// A user struct, as a task would take one.
struct Record {
  std::string name;
  std::vector<std::int64_t> values;
  std::optional<bool> flag;
  std::array<bool, 3> bits{};
  std::vector<std::array<std::tuple<>, 1024>> empties;  // 1 KiB each, no bytes
  bool operator==(const Record&) const = default;
  template <class Archive>
  void serialize(Archive& ar) {
    ar(name, values, flag, bits, empties);
  }
};

using PayloadTypes = std::tuple<
    bool,
    std::optional<std::string>,
    std::vector<bool>,
    std::tuple<int, bool, std::tuple<>>,
    std::vector<std::vector<std::string>>,
    std::map<std::string, std::vector<int>>,
    std::unordered_map<int, std::optional<bool>>,
    std::vector<std::array<std::tuple<>, 1 << 20>>,
    std::vector<std::optional<Record>>,
    Tree,
    // Read without an archive (serialize.hpp's flat types); integers, as a
    // float's NaN equals nothing and would fail the decode-again check.
    std::string,
    std::vector<std::int32_t>>;

/// The first byte of a fuzz input that decodes as T.
template <class T, std::size_t I = 0>
constexpr char TypeByte() {
  if constexpr (std::is_same_v<std::tuple_element_t<I, PayloadTypes>, T>)
    return static_cast<char>(I);
  else
    return TypeByte<T, I + 1>();
}

}  // namespace fiber::fuzz
