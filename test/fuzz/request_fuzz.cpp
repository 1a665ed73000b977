// Fuzzes how a master reads a REQUEST (wire::Decode in wire/request.hpp),
// which any admitted connection of the run may send.
#include "fuzz_check.hpp"

using namespace fiber;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return fuzz::CodecRoundTrip<wire::Request>(
      data, size, [](const wire::Request& m, const wire::Header&) { return wire::Encode(m); });
}
