// Fuzzes how a process of the run reads the master's REPLY (wire::Decode in
// wire/request.hpp), and the pair inside a RAISED one (wire::DecodePair).
#include "fuzz_check.hpp"

using namespace fiber;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const zmq::message_t frame(data, size);
  wire::Reply reply;
  std::string err;
  if (wire::Decode(frame, &reply, &err)) {
    std::string first, second;
    if (wire::DecodePair(reply.body, &first, &second))
      fuzz::Expect(wire::EncodePair(first, second) == reply.body,
                   "a pair written again makes the same bytes");
  }
  return fuzz::CodecRoundTrip<wire::Reply>(
      data, size, [](const wire::Reply& m, const wire::Header&) { return wire::Encode(m); });
}
