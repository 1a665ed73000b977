// Fuzzes how a worker reads a WELCOME body (prefetch u32, initializer name
// and arguments as bytes).
#include "fuzz_check.hpp"

using namespace fiber;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const zmq::message_t frame(data, size);
  wire::Reader r(frame);
  std::uint32_t prefetch = 0;
  std::string_view init, init_args;
  if (!r.U32(&prefetch) || !r.Bytes(&init) || !r.Bytes(&init_args) || !r.AtEnd()) return 0;
  const zmq::message_t again = wire::Writer(wire::Type::kWelcome).U32(prefetch).Bytes(init).Bytes(init_args).Finish();
  fuzz::Expect(fuzz::Body(again) == fuzz::Body(frame), "WELCOME written again makes the same body");
  return 0;
}
