// How task arguments and results travel: cereal's binary format.
// Supported out of the box: arithmetic types, std::string, std::vector,
// std::array, std::map, std::unordered_map, std::pair, std::tuple,
// std::optional. A user struct opts in with a member
//   template <class Archive> void serialize(Archive& ar) { ar(a, b, c); }
//
// Bytes from another process are read as hostile: a string longer than the
// bytes left is refused, and so is a bool other than 0 or 1. Vectors and
// maps charge count*sizeof(element) to a budget of 128 bytes per byte
// received plus 1 MiB before they grow, so L bytes cannot ask for gigabytes,
// and they may nest 1000 deep at most.
#pragma once

#include <cereal/types/array.hpp>
#include <cereal/types/optional.hpp>
#include <cereal/types/string.hpp>
#include <cereal/types/tuple.hpp>
#include <cereal/types/utility.hpp>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "fiber/detail/binary_archives.hpp"
#include "fiber/detail/bounded_containers.hpp"

namespace fiber::detail {

/// Strings and vectors of numbers: in cereal's layout a length and then
/// the elements' bytes as they are in memory, written and read here
/// without an archive (which costs more than copying a short one). The
/// same bytes and the same checks as through the archives.
template <class T>
struct IsFlat : std::false_type {};
template <class C, class Traits, class A>
struct IsFlat<std::basic_string<C, Traits, A>> : std::is_same<C, char> {};
template <class E, class A>
struct IsFlat<std::vector<E, A>> : std::bool_constant<std::is_arithmetic_v<E> && !std::is_same_v<E, bool>> {};

/// Appends value's bytes to *out.
template <class T>
void append_bytes(const T& value, std::string* out) {
  if constexpr (IsFlat<T>::value) {
    const auto length = static_cast<cereal::size_type>(value.size());
    out->append(reinterpret_cast<const char*>(&length), sizeof length);
    out->append(reinterpret_cast<const char*>(value.data()), value.size() * sizeof(value[0]));
  } else {
    OutputArchive archive(out);
    archive(value);
  }
}

template <class T>
std::string to_bytes(const T& value) {
  std::string out;
  append_bytes(value, &out);
  return out;
}

/// Throws cereal::Exception when the bytes do not hold a T, and nothing
/// else: bytes left over mean they were written for another type.
template <class T>
T from_bytes(std::string_view bytes) {
  T value{};
  if constexpr (IsFlat<T>::value) {
    cereal::size_type length = 0;
    std::memcpy(&length, take_bytes(&bytes, sizeof length).data(), sizeof length);
    check_length(length, bytes.size());
    const std::string_view elements = take_bytes(&bytes, static_cast<std::size_t>(length) * sizeof(value[0]));
    if constexpr (std::is_same_v<typename T::value_type, char>) {
      value.assign(elements.begin(), elements.end());  // not zero-filled first
    } else {
      value.resize(static_cast<std::size_t>(length));
      if (length != 0) std::memcpy(value.data(), elements.data(), elements.size());
    }
  } else {
    InputArchive archive(bytes);
    archive(value);
    bytes.remove_prefix(bytes.size() - archive.left());
  }
  if (!bytes.empty())
    throw cereal::Exception(std::to_string(bytes.size()) + " bytes left over after the value");
  return value;
}

}  // namespace fiber::detail
