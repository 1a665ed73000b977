// Fuzzes how a worker reads a REVOKE (wire::Decode in wire/codec.hpp).
#include "fuzz_check.hpp"

using namespace fiber;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return fuzz::CodecRoundTrip<wire::Revoke>(
      data, size, [](const wire::Revoke& m, const wire::Header& h) { return wire::Encode(m, h.channel); });
}
