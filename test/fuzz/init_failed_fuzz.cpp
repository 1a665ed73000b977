// Fuzzes how a master reads a INIT_FAILED (wire::Decode in wire/codec.hpp).
#include "fuzz_check.hpp"

using namespace fiber;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return fuzz::CodecRoundTrip<wire::InitFailed>(
      data, size, [](const wire::InitFailed& m, const wire::Header& h) { return wire::Encode(m, h.channel); });
}
