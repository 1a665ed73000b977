// How task arguments and results travel: cereal's binary archives.
// Supported out of the box: arithmetic types, std::string, std::vector,
// std::array, std::map, std::unordered_map, std::pair, std::tuple,
// std::optional. A user struct opts in with a member
//   template <class Archive> void serialize(Archive& ar) { ar(a, b, c); }
#pragma once

#include <cereal/archives/binary.hpp>
#include <cereal/types/array.hpp>
#include <cereal/types/map.hpp>
#include <cereal/types/optional.hpp>
#include <cereal/types/string.hpp>
#include <cereal/types/tuple.hpp>
#include <cereal/types/unordered_map.hpp>
#include <cereal/types/utility.hpp>
#include <cereal/types/vector.hpp>
#include <sstream>
#include <string>

namespace fiber::detail {

template <class T>
std::string to_bytes(const T& value) {
  std::ostringstream out(std::ios::binary);
  {
    cereal::BinaryOutputArchive archive(out);
    archive(value);
  }
  return std::move(out).str();
}

/// Throws cereal::Exception when the bytes do not hold a T.
template <class T>
T from_bytes(const std::string& bytes) {
  std::istringstream in(bytes, std::ios::binary);
  cereal::BinaryInputArchive archive(in);
  T value{};
  archive(value);
  return value;
}

}  // namespace fiber::detail
