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
#include <istream>
#include <ostream>
#include <string>
#include <string_view>

namespace fiber::detail {

/// This thread's stream that appends to *out while it lives; reused, since
/// building a stream costs more than encoding a small value.
class OutputStream {
 public:
  explicit OutputStream(std::string* out);
  ~OutputStream();
  OutputStream(const OutputStream&) = delete;
  OutputStream& operator=(const OutputStream&) = delete;
  std::ostream& stream() { return *stream_; }

 private:
  std::ostream* stream_;
  std::string* previous_;
};

/// This thread's stream that reads bytes in place while it lives.
class InputStream {
 public:
  explicit InputStream(std::string_view bytes);
  ~InputStream();
  InputStream(const InputStream&) = delete;
  InputStream& operator=(const InputStream&) = delete;
  std::istream& stream() { return *stream_; }

 private:
  std::istream* stream_;
  std::string_view previous_;
  std::size_t previous_pos_;
};

template <class T>
std::string to_bytes(const T& value) {
  std::string out;
  OutputStream sink(&out);
  cereal::BinaryOutputArchive archive(sink.stream());
  archive(value);
  return out;
}

/// Throws cereal::Exception when the bytes do not hold a T.
template <class T>
T from_bytes(std::string_view bytes) {
  InputStream source(bytes);
  cereal::BinaryInputArchive archive(source.stream());
  T value{};
  archive(value);
  return value;
}

}  // namespace fiber::detail
