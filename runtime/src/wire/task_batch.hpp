// The bodies of TASK and RESULT: several tasks (or their results) in one
// message, so a worker fed many short tasks costs one message per batch,
// not one per task. Views point into the message they were read from.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "wire/message.hpp"

namespace fiber::wire {

/// One task of a TASK message: calls of one function, each an encoded
/// argument tuple.
struct TaskView {
  std::uint64_t id = 0;
  std::string_view function;
  std::vector<std::string_view> calls;
};

/// One call's outcome in RESULT: kind (detail::Outcome::Kind) and data.
struct OutcomeView {
  std::uint8_t kind = 0;
  std::string_view data;
};

/// The outcomes of one task of a RESULT message, one per call.
struct ResultView {
  std::uint64_t id = 0;
  std::vector<OutcomeView> outcomes;
};

/// TASK body: tasks one after another to the end of the message.
void AppendTask(Writer& w, std::uint64_t id, std::string_view function,
                const std::vector<std::string>& calls);
bool ReadTasks(const zmq::message_t& message, std::vector<TaskView>* tasks, std::string* err);

/// RESULT body: the worker's credit (u32), then results to the end of the
/// message. Call AppendResultHead once per task, then AppendOutcome once per
/// call.
void AppendResultHead(Writer& w, std::uint64_t id, std::uint32_t calls);
void AppendOutcome(Writer& w, std::uint8_t kind, std::string_view data);
bool ReadResults(const zmq::message_t& message, std::uint32_t* credit,
                 std::vector<ResultView>* results, std::string* err);

}  // namespace fiber::wire
