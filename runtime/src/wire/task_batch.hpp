// The bodies of TASK and RESULT: several tasks (or their results) in one
// message, so a worker fed many short tasks costs one message per batch,
// not one per task. Views point into the message they were read from.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "wire/codec.hpp"
#include "wire/message.hpp"

namespace fiber::wire {

/// How a worker runs the argument blobs of one task.
enum class TaskForm : std::uint8_t {
  kCalls = 0,  // each blob is one call's argument tuple, with an outcome each
  kChunk = 1,  // each blob is a vector of argument tuples run as one unit (map,
               // starmap): its one outcome holds the results one after another,
               // or the first exception, which ends the chunk
};
constexpr std::uint8_t kLastTaskForm = static_cast<std::uint8_t>(TaskForm::kChunk);

/// One task of a TASK message: blobs of arguments for one function.
struct TaskView {
  std::uint64_t id = 0;
  std::string_view function;
  TaskForm form = TaskForm::kCalls;
  std::vector<std::string_view> calls;
};

/// What became of one call in a worker, as RESULT carries it.
enum class OutcomeKind : std::uint8_t {
  kValue = 0,          // value: the encoded result
  kRaised = 1,         // raised: the exception
  kNotRegistered = 2,  // value: why (the worker has no such function)
};
constexpr std::uint8_t kLastOutcomeKind = static_cast<std::uint8_t>(OutcomeKind::kNotRegistered);

struct OutcomeView {
  OutcomeKind kind = OutcomeKind::kValue;
  std::string_view value;
  Raised raised;
};

/// The outcomes of one task of a RESULT message, one per call.
struct ResultView {
  std::uint64_t id = 0;
  std::vector<OutcomeView> outcomes;
};

/// TASK body: tasks one after another to the end of the message.
void AppendTask(Writer& w, std::uint64_t id, std::string_view function, TaskForm form,
                const std::vector<std::string>& calls);
[[nodiscard]] bool ReadTasks(const zmq::message_t& message, std::vector<TaskView>* tasks,
                             std::string* err);

/// RESULT body: the worker's credit (u32), then results to the end of the
/// message. Call AppendResultHead once per task, then AppendOutcome once per
/// call.
void AppendResultHead(Writer& w, std::uint64_t id, std::uint32_t calls);
void AppendOutcome(Writer& w, const OutcomeView& outcome);
/// What a RESULT's reader does with one result, told by its ResultCheck
/// before any of its outcomes is read.
enum class ResultUse {
  kKeep,    // read its outcomes into the result
  kSkip,    // check its outcomes and keep none (a result nobody waits for)
  kRefuse,  // the message is refused: *why says why
};
/// Given a result's task id and the outcomes it claims, what to do with it.
using ResultCheck =
    std::function<ResultUse(std::uint64_t id, std::uint32_t outcomes, std::string* why)>;
/// Checks the credit against kMaxCredit, every outcome's kind, and each
/// result by check before its outcomes are read, so that a message's
/// counts cost the reader nothing it did not agree to (one claiming more
/// outcomes than its bytes could hold is refused before check is asked).
[[nodiscard]] bool ReadResults(const zmq::message_t& message, std::uint32_t* credit,
                               std::vector<ResultView>* results, std::string* err,
                               const ResultCheck& check);

}  // namespace fiber::wire
