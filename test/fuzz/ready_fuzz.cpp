// Fuzzes how a master reads a READY body (credit u32).
#include "fuzz_check.hpp"

using namespace fiber;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const zmq::message_t frame(data, size);
  wire::Reader r(frame);
  std::uint32_t credit = 0;
  if (!r.U32(&credit) || !r.AtEnd()) return 0;
  const zmq::message_t again = wire::Writer(wire::Type::kReady).U32(credit).Finish();
  fuzz::Expect(fuzz::Body(again) == fuzz::Body(frame), "READY written again makes the same body");
  return 0;
}
