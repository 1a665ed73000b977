// The two archives behind fiber/serialize.hpp: cereal's binary layout
// written straight into and read straight out of memory, the reader taking
// nothing on trust from the bytes it is given.
#pragma once

#include <cereal/cereal.hpp>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>

namespace fiber::detail {

/// The first n of *bytes, taken off them; throws cereal::Exception when
/// fewer are left.
inline std::string_view take_bytes(std::string_view* bytes, std::size_t n) {
  if (n > bytes->size())
    throw cereal::Exception("the bytes end " + std::to_string(n - bytes->size()) +
                            " bytes short of the value");
  const std::string_view taken = bytes->substr(0, n);
  bytes->remove_prefix(n);
  return taken;
}

/// A string or a vector of numbers may not hold more elements than there
/// are bytes left, so a lying length fails before it grows to it.
inline void check_length(std::uint64_t length, std::size_t left) {
  if (length > left)
    throw cereal::Exception("a length of " + std::to_string(length) + " with only " +
                            std::to_string(left) + " bytes left");
}

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
/// cereal::Exception when they run out, promise more than they hold, or
/// would make it allocate or nest more than their size allows.
class InputArchive : public cereal::InputArchive<InputArchive, cereal::AllowEmptyClassElision> {
 public:
  /// Containers may allocate this much per byte of input, plus the slack:
  /// room for the fattest element per byte of the supported types (an
  /// empty std::optional<std::string> is 40 bytes from a 1-byte flag).
  static constexpr std::uint64_t kAllocationPerByte = 128;
  static constexpr std::uint64_t kAllocationSlack = std::uint64_t{1} << 20;
  /// Containers inside containers, at most: in a recursive user type
  /// (struct Tree { std::vector<Tree> kids; }) 8 bytes make a level, and a
  /// level takes up to 700 bytes of stack (under AddressSanitizer).
  static constexpr int kMaxNesting = 1000;

  explicit InputArchive(std::string_view bytes)
      : cereal::InputArchive<InputArchive, cereal::AllowEmptyClassElision>(this),
        bytes_(bytes),
        budget_(kAllocationPerByte * bytes.size() + kAllocationSlack) {}

  void loadBinary(void* data, std::streamsize size) {
    const std::string_view from = next(static_cast<std::size_t>(size));
    if (!from.empty()) std::memcpy(data, from.data(), from.size());  // an empty container's data() may be null
  }
  /// The next n bytes, read in place.
  std::string_view next(std::size_t n) { return take_bytes(&bytes_, n); }

  /// A bool is one byte, 0 or 1: any other byte copied into a bool would
  /// make an invalid one (undefined behaviour), so it is refused.
  void loadBools(bool* data, std::size_t n) {
    for (std::size_t i = 0; i < n && i < bytes_.size(); ++i) {
      const auto byte = static_cast<unsigned char>(bytes_[i]);
      if (byte > 1) throw cereal::Exception("a bool of " + std::to_string(byte) + ", not 0 or 1");
    }
    loadBinary(data, static_cast<std::streamsize>(n));
  }

  std::size_t left() const { return bytes_.size(); }

  /// Counts `count` elements of `size` bytes against what the input may
  /// make its containers allocate, before they allocate it.
  void charge(std::uint64_t count, std::size_t size) {
    if (count > budget_ / size)
      throw cereal::Exception(std::to_string(count) + " elements of " + std::to_string(size) +
                              " bytes would be more memory than " + std::to_string(kAllocationPerByte) +
                              " bytes per byte received");
    budget_ -= count * size;
  }

  /// Held while a container's elements load.
  class Nested {
   public:
    explicit Nested(InputArchive& ar) : ar_(ar) {
      if (++ar_.depth_ > kMaxNesting)
        throw cereal::Exception("containers nested more than " + std::to_string(kMaxNesting) + " deep");
    }
    ~Nested() { --ar_.depth_; }
    Nested(const Nested&) = delete;
    Nested& operator=(const Nested&) = delete;

   private:
    InputArchive& ar_;
  };

 private:
  std::string_view bytes_;
  std::uint64_t budget_;
  int depth_ = 0;
};

// The binary format's rules, as cereal's own binary archive states them.
template <class T>
std::enable_if_t<std::is_arithmetic_v<T>> CEREAL_SAVE_FUNCTION_NAME(OutputArchive& ar, const T& t) {
  ar.saveBinary(std::addressof(t), sizeof t);
}
template <class T>
std::enable_if_t<std::is_arithmetic_v<T> && !std::is_same_v<T, bool>> CEREAL_LOAD_FUNCTION_NAME(
    InputArchive& ar, T& t) {
  ar.loadBinary(std::addressof(t), sizeof t);
}
// Reached by bool arguments and results, std::optional's flag and the
// elements of std::vector<bool>.
inline void CEREAL_LOAD_FUNCTION_NAME(InputArchive& ar, bool& b) { ar.loadBools(&b, 1); }
template <class Archive, class T>
CEREAL_ARCHIVE_RESTRICT(InputArchive, OutputArchive)
CEREAL_SERIALIZE_FUNCTION_NAME(Archive& ar, cereal::NameValuePair<T>& t) {
  ar(t.value);
}
template <class T>
void CEREAL_SAVE_FUNCTION_NAME(OutputArchive& ar, const cereal::SizeTag<T>& t) {
  ar(t.size);
}
/// Lengths read as cereal's size tags are checked (check_length). (Vectors
/// of other elements and maps are charged instead: bounded_containers.hpp.)
template <class T>
void CEREAL_LOAD_FUNCTION_NAME(InputArchive& ar, cereal::SizeTag<T>& t) {
  ar(t.size);
  check_length(static_cast<std::uint64_t>(t.size), ar.left());
}
/// A std::string's characters copied once, straight from the bytes (cereal's
/// own load zero-fills it first).
inline void CEREAL_LOAD_FUNCTION_NAME(InputArchive& ar, std::string& s) {
  cereal::size_type size = 0;
  ar(cereal::make_size_tag(size));
  s.assign(ar.next(static_cast<std::size_t>(size)));
}
template <class T>
void CEREAL_SAVE_FUNCTION_NAME(OutputArchive& ar, const cereal::BinaryData<T>& bd) {
  ar.saveBinary(bd.data, static_cast<std::streamsize>(bd.size));
}
/// Arrays of arithmetic elements (std::array, C arrays) and std::string's
/// characters are read as one block; a block of bools is checked first.
template <class T>
void CEREAL_LOAD_FUNCTION_NAME(InputArchive& ar, cereal::BinaryData<T>& bd) {
  using Pointee = std::remove_pointer_t<std::remove_reference_t<T>>;
  if constexpr (std::is_same_v<std::remove_cv_t<std::remove_all_extents_t<Pointee>>, bool>)
    ar.loadBools(static_cast<bool*>(bd.data), static_cast<std::size_t>(bd.size));
  else
    ar.loadBinary(bd.data, static_cast<std::streamsize>(bd.size));
}

}  // namespace fiber::detail

CEREAL_REGISTER_ARCHIVE(fiber::detail::OutputArchive)
CEREAL_REGISTER_ARCHIVE(fiber::detail::InputArchive)
CEREAL_SETUP_ARCHIVE_TRAITS(fiber::detail::InputArchive, fiber::detail::OutputArchive)
