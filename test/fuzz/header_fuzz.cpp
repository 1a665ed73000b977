// Fuzzes wire::ParseHeader, which every received frame meets first.
#include "fuzz_check.hpp"

using namespace fiber;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const zmq::message_t frame(data, size);
  wire::Header header;
  std::string err;
  if (!wire::ParseHeader(frame, &header, &err)) {
    fuzz::Expect(!err.empty(), "a refused frame comes with a reason");
    return 0;
  }
  const zmq::message_t again = wire::Writer(header.type, header.channel, header.version).Rest(fuzz::Body(frame)).Finish();
  fuzz::Expect(fuzz::Bytes(again) == fuzz::Bytes(frame), "the header written again makes the same frame");
  return 0;
}
