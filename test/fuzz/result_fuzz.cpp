// Fuzzes wire::ReadResults, how a master reads a RESULT body.
#include "fuzz_check.hpp"
#include "wire/task_batch.hpp"

using namespace fiber;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const zmq::message_t frame(data, size);
  std::uint32_t credit = 0;
  std::vector<wire::ResultView> results;
  std::string err;
  // A reader choosing by task id, as a master does by the tasks a worker holds.
  const auto choose = [](std::uint64_t id, std::uint32_t, std::string* why) {
    if (id % 3 == 2) *why = "task " + std::to_string(id) + " is not held";
    return id % 3 == 0 ? wire::ResultUse::kKeep
                       : id % 3 == 1 ? wire::ResultUse::kSkip : wire::ResultUse::kRefuse;
  };
  if (wire::ReadResults(frame, &credit, &results, &err, choose)) {
    for (const auto& result : results)
      fuzz::Expect(result.id % 3 != 2, "a refused result ends the read");
    for (const auto& result : results)
      fuzz::Expect(result.id % 3 == 0 || result.outcomes.empty(), "a skipped result keeps no outcome");
  } else {
    fuzz::Expect(!err.empty(), "a refused RESULT comes with a reason");
  }
  const auto keep = [](std::uint64_t, std::uint32_t, std::string*) { return wire::ResultUse::kKeep; };
  if (!wire::ReadResults(frame, &credit, &results, &err, keep)) {
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
