// Fuzzes how a master reads a REQUEST (wire::Decode in wire/request.hpp),
// which any admitted connection of the run may send, and how a manager
// reads the calls of a MANAGER_CALLS (wire::DecodeCalls).
#include "fuzz_check.hpp"
#include "wire/limits.hpp"

using namespace fiber;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const zmq::message_t frame(data, size);
  wire::Request request;
  std::string err;
  std::vector<wire::CallView> calls;
  if (wire::Decode(frame, &request, &err) && wire::DecodeCalls(request.body, &calls)) {
    fuzz::Expect(calls.size() <= wire::kMaxCallsInFlight, "a batch holds at most kMaxCallsInFlight calls");
    std::vector<wire::Request> again(calls.size());
    std::vector<const wire::Request*> each;
    for (std::size_t i = 0; i < calls.size(); ++i) {
      again[i].id = calls[i].id;
      again[i].body = calls[i].body;
      each.push_back(&again[i]);
    }
    fuzz::Expect(wire::EncodeCalls(each) == request.body, "calls written again make the same bytes");
  }
  return fuzz::CodecRoundTrip<wire::Request>(
      data, size, [](const wire::Request& m, const wire::Header&) { return wire::Encode(m); });
}
