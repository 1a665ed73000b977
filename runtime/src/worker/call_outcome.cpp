#include "worker/call_outcome.hpp"

#include <exception>

#include "diagnostics/hop_trace.hpp"
#include "os/demangle.hpp"
#include "worker/registered_names.hpp"

namespace fiber::worker {

using wire::OutcomeKind;

CallOutcome RunCall(const std::string& worker_id, detail::Invoker invoker,
                    std::string_view function, std::string_view args, AfterCall after_call) {
  if (!invoker)
    return {OutcomeKind::kNotRegistered,
            "worker " + worker_id + " has no task named '" + std::string(function) +
                "'; is FIBER_TASK(" + std::string(detail::RegisteredAs(function)) +
                ") compiled into this executable?",
            {}, {}};
  CallOutcome outcome;
  try {
    outcome.value = invoker(args);
  } catch (const std::exception& e) {
    outcome = {OutcomeKind::kRaised, {}, CurrentExceptionType(), e.what()};
  } catch (...) {
    outcome = {OutcomeKind::kRaised, {}, CurrentExceptionType(),
               "an exception that is not a std::exception"};
  }
  // A result (a Process's exit too) is sent only once the call's puts are
  // in their queues; an error one met is the call's, unless it raised.
  FIBER_HOP("w-ran");
  if (!after_call) return outcome;
  try {
    after_call();
  } catch (const std::exception& e) {
    if (outcome.kind == OutcomeKind::kValue)
      outcome = {OutcomeKind::kRaised, {}, CurrentExceptionType(), e.what()};
  }
  return outcome;
}

}  // namespace fiber::worker
