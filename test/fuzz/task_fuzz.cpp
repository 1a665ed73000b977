// Fuzzes wire::ReadTasks, how a worker reads a TASK body.
#include "fuzz_check.hpp"
#include "wire/task_batch.hpp"

using namespace fiber;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const zmq::message_t frame(data, size);
  std::vector<wire::TaskView> tasks;
  std::string err;
  if (!wire::ReadTasks(frame, &tasks, &err)) {
    fuzz::Expect(!err.empty(), "a refused TASK comes with a reason");
    return 0;
  }
  wire::Header header;
  fuzz::Expect(wire::ParseHeader(frame, &header, &err), "a read TASK has a header");
  wire::Writer again(wire::Type::kTask, header.channel);
  for (const auto& task : tasks)
    wire::AppendTask(again, task.id, task.function, task.form, {task.calls.begin(), task.calls.end()});
  fuzz::Expect(fuzz::Body(again.Finish()) == fuzz::Body(frame), "TASK written again makes the same body");
  return 0;
}
