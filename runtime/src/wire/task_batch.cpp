#include "wire/task_batch.hpp"

#include "wire/limits.hpp"

namespace fiber::wire {

// A count is checked against the bytes left, at the least each entry it
// counts takes on the wire, before anything is reserved for it.
namespace {

constexpr std::size_t kLengthBytes = sizeof(std::uint32_t);
// An outcome's kind and the length of its (empty) value.
constexpr std::size_t kLeastOutcomeBytes = 1 + kLengthBytes;

bool ReadOutcome(Reader& r, OutcomeView* outcome, std::string* why) {
  std::uint8_t kind = 0;
  if (!r.U8(&kind)) return false;
  if (kind > kLastOutcomeKind) {
    *why = "an outcome of unknown kind " + std::to_string(kind);
    return false;
  }
  outcome->kind = static_cast<OutcomeKind>(kind);
  if (outcome->kind == OutcomeKind::kRaised)
    return r.Bytes(&outcome->raised.type) && r.Bytes(&outcome->raised.message);
  return r.Bytes(&outcome->value);
}

}  // namespace

void AppendTask(Writer& w, std::uint64_t id, std::string_view function, TaskForm form,
                const std::vector<std::string>& calls) {
  w.U64(id).Bytes(function).U8(static_cast<std::uint8_t>(form)).U32(static_cast<std::uint32_t>(calls.size()));
  for (const auto& call : calls) w.Bytes(call);
}

bool ReadTasks(const zmq::message_t& message, std::vector<TaskView>* tasks, std::string* err) {
  tasks->clear();
  if (!ExpectType(message, Type::kTask, err)) return false;
  Reader r(message);
  while (!r.AtEnd()) {
    TaskView task;
    std::uint8_t form = 0;
    std::uint32_t calls = 0;
    if (!r.U64(&task.id) || !r.Bytes(&task.function) || !r.U8(&form) || !r.U32(&calls)) {
      *err = "a TASK message ends inside a task's header";
      return false;
    }
    if (form > kLastTaskForm) {
      *err = "a TASK message with task " + std::to_string(task.id) + " of unknown form " +
             std::to_string(form);
      return false;
    }
    task.form = static_cast<TaskForm>(form);
    if (calls > r.left() / kLengthBytes) {
      *err = "a TASK message claiming " + std::to_string(calls) + " calls of task " +
             std::to_string(task.id) + " in " + std::to_string(r.left()) + " bytes";
      return false;
    }
    task.calls.reserve(calls);
    for (std::uint32_t i = 0; i < calls; ++i) {
      std::string_view args;
      if (!r.Bytes(&args)) {
        *err = "a TASK message ends inside the calls of task " + std::to_string(task.id);
        return false;
      }
      task.calls.push_back(args);
    }
    tasks->push_back(std::move(task));
  }
  return true;
}

void AppendResultHead(Writer& w, std::uint64_t id, std::uint32_t calls) { w.U64(id).U32(calls); }

void AppendOutcome(Writer& w, const OutcomeView& outcome) {
  w.U8(static_cast<std::uint8_t>(outcome.kind));
  if (outcome.kind == OutcomeKind::kRaised) {
    w.Bytes(outcome.raised.type).Bytes(outcome.raised.message);
  } else {
    w.Bytes(outcome.value);
  }
}

bool ReadResults(const zmq::message_t& message, std::uint32_t* credit,
                 std::vector<ResultView>* results, std::string* err, const ResultCheck& check) {
  results->clear();
  if (!ExpectType(message, Type::kResult, err)) return false;
  Reader r(message);
  if (!r.U32(credit)) {
    *err = "a RESULT message without a credit";
    return false;
  }
  if (*credit == 0 || *credit > kMaxCredit) {
    *err = "a RESULT asking for a credit of " + std::to_string(*credit);
    return false;
  }
  while (!r.AtEnd()) {
    ResultView result;
    std::uint32_t calls = 0;
    if (!r.U64(&result.id) || !r.U32(&calls)) {
      *err = "a RESULT message ends inside a result's header";
      return false;
    }
    if (calls > r.left() / kLeastOutcomeBytes) {
      *err = "a RESULT message claiming " + std::to_string(calls) + " outcomes of task " +
             std::to_string(result.id) + " in " + std::to_string(r.left()) + " bytes";
      return false;
    }
    const ResultUse use = check(result.id, calls, err);
    if (use == ResultUse::kRefuse) return false;
    if (use == ResultUse::kKeep) result.outcomes.reserve(calls);
    for (std::uint32_t i = 0; i < calls; ++i) {
      OutcomeView outcome;
      std::string why;
      if (!ReadOutcome(r, &outcome, &why)) {
        *err = "a RESULT message with " +
               (why.empty() ? std::string("an end inside") : why + " among") +
               " the outcomes of task " + std::to_string(result.id);
        return false;
      }
      if (use == ResultUse::kKeep) result.outcomes.push_back(outcome);
    }
    results->push_back(std::move(result));
  }
  return true;
}

}  // namespace fiber::wire
