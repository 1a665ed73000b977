// Fuzzes how a master reads a HELLO (wire::Decode in wire/codec.hpp).
#include "fuzz_check.hpp"

using namespace fiber;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return fuzz::CodecRoundTrip<wire::Hello>(
      data, size, [](const wire::Hello& m, const wire::Header&) { return wire::Encode(m); });
}
