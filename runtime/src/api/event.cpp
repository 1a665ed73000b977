// Event operations as requests to the run's master (master/sync_table.hpp
// holds the events).
#include "fiber/event.hpp"

#include "api/run_object.hpp"

namespace fiber::detail {

void event_set(const RunObjectRef& e, bool set, const char* where) {
  (void)ask_master(e, set ? wire::Op::kEventSet : wire::Op::kEventClear, {}, std::nullopt, where);
}

bool event_wait(const RunObjectRef& e, const Timeout& timeout, const char* where) {
  return ask_master(e, wire::Op::kEventWait, {}, timeout, where).status == wire::Status::kOk;
}

}  // namespace fiber::detail
