// Fuzzes wire::ReadResults, how a master reads a RESULT body.
#include "fuzz_check.hpp"
#include "wire/task_batch.hpp"

using namespace fiber;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const zmq::message_t frame(data, size);
  std::uint32_t credit = 0;
  std::vector<wire::ResultView> results;
  std::string err;
  if (!wire::ReadResults(frame, &credit, &results, &err)) {
    fuzz::Expect(!err.empty(), "a refused RESULT comes with a reason");
    return 0;
  }
  wire::Header header;
  fuzz::Expect(wire::ParseHeader(frame, &header, &err), "a read RESULT has a header");
  wire::Writer again(wire::Type::kResult, header.channel);
  again.U32(credit);
  for (const auto& result : results) {
    wire::AppendResultHead(again, result.id, static_cast<std::uint32_t>(result.outcomes.size()));
    for (const auto& outcome : result.outcomes) wire::AppendOutcome(again, outcome);
  }
  fuzz::Expect(fuzz::Body(again.Finish()) == fuzz::Body(frame), "RESULT written again makes the same body");
  return 0;
}
