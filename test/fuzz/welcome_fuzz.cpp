// Fuzzes how a worker reads a WELCOME (wire::Decode in wire/codec.hpp).
#include "fuzz_check.hpp"

using namespace fiber;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return fuzz::CodecRoundTrip<wire::Welcome>(
      data, size, [](const wire::Welcome& m, const wire::Header&) { return wire::Encode(m); });
}
