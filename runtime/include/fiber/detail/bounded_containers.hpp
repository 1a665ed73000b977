// Loads of the containers whose elements may take no bytes at all
// (std::tuple<>, an empty struct, arrays of them): a check of the length
// against the bytes left would refuse them wrongly and still not bound them,
// so each load charges what it is about to allocate to the archive's budget
// instead. They replace cereal's own loads for fiber's InputArchive only
// (being more specialized), and keep cereal's layout. Strings and vectors of
// numbers or bools keep the length check: each element takes a byte.
#pragma once

#include <cereal/types/map.hpp>
#include <cereal/types/unordered_map.hpp>
#include <cereal/types/vector.hpp>
#include <type_traits>
#include <utility>
#include <vector>

#include "fiber/detail/binary_archives.hpp"

namespace fiber::detail {

/// A container's length, charged for elements of `size` bytes rather than
/// held to the bytes left: elements that take no bytes may outnumber them.
inline cereal::size_type ChargedLength(InputArchive& ar, std::size_t size) {
  cereal::size_type length;
  ar(length);
  ar.charge(length, size);
  return length;
}

template <class T, class A>
std::enable_if_t<!std::is_arithmetic_v<T>> CEREAL_LOAD_FUNCTION_NAME(InputArchive& ar,
                                                                    std::vector<T, A>& vector) {
  const auto size = ChargedLength(ar, sizeof(T));
  InputArchive::Nested nested(ar);
  vector.resize(static_cast<std::size_t>(size));
  for (auto& element : vector) ar(element);
}

/// std::map, std::unordered_map and their multi- variants: a node holds the
/// pair and about four pointers (links, or a bucket and a cached hash).
template <template <class...> class Map, class... Args, class = typename Map<Args...>::mapped_type>
void CEREAL_LOAD_FUNCTION_NAME(InputArchive& ar, Map<Args...>& map) {
  using Type = Map<Args...>;
  const auto size = ChargedLength(ar, sizeof(typename Type::value_type) + 4 * sizeof(void*));
  InputArchive::Nested nested(ar);
  map.clear();
  auto hint = map.begin();
  for (cereal::size_type i = 0; i < size; ++i) {
    typename Type::key_type key;
    typename Type::mapped_type value;
    ar(cereal::make_map_item(key, value));
    hint = map.emplace_hint(hint, std::move(key), std::move(value));
  }
}

}  // namespace fiber::detail
