// One call of a function registered in this executable (FIBER_TASK), as a
// worker runs it for a task, a pool's initializer or a manager's direct
// call, and what became of it: the bytes a RESULT or a direct call's answer
// carries. Used by the serve loop (worker/serve_loop.hpp).
#pragma once

#include <string>
#include <string_view>

#include "fiber/task.hpp"
#include "wire/task_batch.hpp"

namespace fiber::worker {

/// One call's outcome; owns the bytes its view points into.
struct CallOutcome {
  wire::OutcomeKind kind = wire::OutcomeKind::kValue;
  std::string value, type, message;
  wire::OutcomeView view() const { return {kind, value, {type, message}}; }
};

/// What the API has run after each call, before its result goes (it waits
/// for the call's pipelined queue puts: api/queue.cpp); it may throw, and
/// what it throws is the call's error unless the call raised first.
using AfterCall = void (*)();

/// Runs one call of function by invoker (nullptr: not registered here, which
/// the outcome explains, naming worker_id). What the call raises becomes its
/// outcome; it returns once after_call (when set) has returned.
CallOutcome RunCall(const std::string& worker_id, detail::Invoker invoker,
                    std::string_view function, std::string_view args, AfterCall after_call);

}  // namespace fiber::worker
