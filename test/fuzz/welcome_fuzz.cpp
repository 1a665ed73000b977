// Fuzzes how a worker reads a WELCOME (wire::Decode in wire/codec.hpp).
#include "fuzz_check.hpp"
#include "wire/codec.hpp"

using namespace fiber;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const zmq::message_t frame(data, size);
  wire::Welcome m;
  std::string err;
  if (!wire::Decode(frame, &m, &err)) {
    fuzz::Expect(!err.empty(), "a refused WELCOME comes with a reason");
    return 0;
  }
  wire::Header header;
  fuzz::Expect(wire::ParseHeader(frame, &header, &err), "a decoded WELCOME has a header");
  const zmq::message_t again = wire::Encode(m);
  fuzz::Expect(fuzz::Body(again) == fuzz::Body(frame), "WELCOME written again makes the same body");
  return 0;
}
