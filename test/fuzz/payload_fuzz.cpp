// Fuzzes fiber::detail::from_bytes, how task arguments and results are read.
// The first byte picks a type of payload_types.hpp, the rest are its bytes.
#include "fuzz_check.hpp"
#include "payload_types.hpp"

namespace {

/// A value that decodes must decode again from its own encoding; when T's
/// encoding is canonical (not a map, whose keys may come in any order or
/// twice), that encoding is the very bytes it was read from.
template <class T>
void Decode(std::string_view bytes) {
  T value;
  try {
    value = fiber::detail::from_bytes<T>(bytes);
  } catch (const cereal::Exception&) {
    return;
  }
  const std::string encoded = fiber::detail::to_bytes(value);
  fiber::fuzz::Expect(fiber::detail::from_bytes<T>(encoded) == value, "a decoded value decodes again");
  if constexpr (!requires { typename T::mapped_type; })
    fiber::fuzz::Expect(bytes.substr(0, encoded.size()) == encoded, "a decoded value encodes to its bytes");
}

template <std::size_t... I>
void DecodeAs(std::size_t type, std::string_view bytes, std::index_sequence<I...>) {
  ((type == I ? Decode<std::tuple_element_t<I, fiber::fuzz::PayloadTypes>>(bytes) : void()), ...);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  constexpr std::size_t kTypes = std::tuple_size_v<fiber::fuzz::PayloadTypes>;
  DecodeAs(data[0] % kTypes, {reinterpret_cast<const char*>(data) + 1, size - 1},
           std::make_index_sequence<kTypes>());
  return 0;
}
