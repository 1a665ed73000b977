// Fuzzes how a master reads a HELLO body (pid u64).
#include "fuzz_check.hpp"

using namespace fiber;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const zmq::message_t frame(data, size);
  wire::Reader r(frame);
  std::uint64_t pid = 0;
  if (!r.U64(&pid) || !r.AtEnd()) return 0;
  const zmq::message_t again = wire::Writer(wire::Type::kHello).U64(pid).Finish();
  fuzz::Expect(fuzz::Body(again) == fuzz::Body(frame), "HELLO written again makes the same body");
  return 0;
}
