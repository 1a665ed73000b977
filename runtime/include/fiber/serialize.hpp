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
#include <string>
#include <string_view>

#include "fiber/detail/binary_archives.hpp"
#include "fiber/detail/bounded_containers.hpp"

namespace fiber::detail {

template <class T>
std::string to_bytes(const T& value) {
  std::string out;
  OutputArchive archive(&out);
  archive(value);
  return out;
}

/// Throws cereal::Exception when the bytes do not hold a T, and nothing
/// else: bytes left over mean they were written for another type.
template <class T>
T from_bytes(std::string_view bytes) {
  InputArchive archive(bytes);
  T value{};
  archive(value);
  if (archive.left() != 0)
    throw cereal::Exception(std::to_string(archive.left()) + " bytes left over after the value");
  return value;
}

}  // namespace fiber::detail
