// How task arguments and results travel: cereal's binary format.
// Supported out of the box: arithmetic types, std::string, std::vector,
// std::array, std::map, std::unordered_map, std::pair, std::tuple,
// std::optional. A user struct opts in with a member
//   template <class Archive> void serialize(Archive& ar) { ar(a, b, c); }
//
// The two archives below write and read cereal's binary layout straight
// into and out of memory. The reader also refuses a container or string
// length larger than the bytes left, before anything is allocated for it:
// bytes from another process must not make this one allocate gigabytes.
#pragma once

#include <cereal/cereal.hpp>
#include <cereal/types/array.hpp>
#include <cereal/types/map.hpp>
#include <cereal/types/optional.hpp>
#include <cereal/types/string.hpp>
#include <cereal/types/tuple.hpp>
#include <cereal/types/unordered_map.hpp>
#include <cereal/types/utility.hpp>
#include <cereal/types/vector.hpp>
#include <cstring>
#include <string>
#include <string_view>

namespace fiber::detail {

/// Appends cereal's binary encoding of values to a string.
class OutputArchive : public cereal::OutputArchive<OutputArchive, cereal::AllowEmptyClassElision> {
 public:
  explicit OutputArchive(std::string* out)
      : cereal::OutputArchive<OutputArchive, cereal::AllowEmptyClassElision>(this), out_(out) {}
  void saveBinary(const void* data, std::streamsize size) {
    if (size > 0) out_->append(static_cast<const char*>(data), static_cast<std::size_t>(size));
  }

 private:
  std::string* out_;
};

/// Reads cereal's binary encoding from bytes it does not own; throws
/// cereal::Exception when they run out or promise more than they hold.
class InputArchive : public cereal::InputArchive<InputArchive, cereal::AllowEmptyClassElision> {
 public:
  explicit InputArchive(std::string_view bytes)
      : cereal::InputArchive<InputArchive, cereal::AllowEmptyClassElision>(this), bytes_(bytes) {}
  void loadBinary(void* data, std::streamsize size) {
    const auto n = static_cast<std::size_t>(size);
    if (n > bytes_.size())
      throw cereal::Exception("the bytes end " + std::to_string(n - bytes_.size()) +
                              " bytes short of the value");
    if (n == 0) return;  // an empty container's data() may be null
    std::memcpy(data, bytes_.data(), n);
    bytes_.remove_prefix(n);
  }
  std::size_t left() const { return bytes_.size(); }

 private:
  std::string_view bytes_;
};

template <class T>
std::string to_bytes(const T& value) {
  std::string out;
  OutputArchive archive(&out);
  archive(value);
  return out;
}

/// Throws cereal::Exception when the bytes do not hold a T.
template <class T>
T from_bytes(std::string_view bytes) {
  InputArchive archive(bytes);
  T value{};
  archive(value);
  return value;
}

// The binary format's rules, as cereal's own binary archive states them.
template <class T>
std::enable_if_t<std::is_arithmetic_v<T>> CEREAL_SAVE_FUNCTION_NAME(OutputArchive& ar, const T& t) {
  ar.saveBinary(std::addressof(t), sizeof t);
}
template <class T>
std::enable_if_t<std::is_arithmetic_v<T>> CEREAL_LOAD_FUNCTION_NAME(InputArchive& ar, T& t) {
  ar.loadBinary(std::addressof(t), sizeof t);
}
template <class Archive, class T>
CEREAL_ARCHIVE_RESTRICT(InputArchive, OutputArchive)
CEREAL_SERIALIZE_FUNCTION_NAME(Archive& ar, cereal::NameValuePair<T>& t) {
  ar(t.value);
}
template <class T>
void CEREAL_SAVE_FUNCTION_NAME(OutputArchive& ar, const cereal::SizeTag<T>& t) {
  ar(t.size);
}
/// Every element takes at least one byte, so a length above the bytes left
/// is a lie (or garbage), refused before the container grows to it.
template <class T>
void CEREAL_LOAD_FUNCTION_NAME(InputArchive& ar, cereal::SizeTag<T>& t) {
  ar(t.size);
  if (static_cast<std::uint64_t>(t.size) > ar.left())
    throw cereal::Exception("a length of " + std::to_string(t.size) + " with only " +
                            std::to_string(ar.left()) + " bytes left");
}
template <class T>
void CEREAL_SAVE_FUNCTION_NAME(OutputArchive& ar, const cereal::BinaryData<T>& bd) {
  ar.saveBinary(bd.data, static_cast<std::streamsize>(bd.size));
}
template <class T>
void CEREAL_LOAD_FUNCTION_NAME(InputArchive& ar, cereal::BinaryData<T>& bd) {
  ar.loadBinary(bd.data, static_cast<std::streamsize>(bd.size));
}

}  // namespace fiber::detail

CEREAL_REGISTER_ARCHIVE(fiber::detail::OutputArchive)
CEREAL_REGISTER_ARCHIVE(fiber::detail::InputArchive)
CEREAL_SETUP_ARCHIVE_TRAITS(fiber::detail::InputArchive, fiber::detail::OutputArchive)
