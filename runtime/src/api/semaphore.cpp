// Lock and Semaphore operations as requests to the run's master
// (master/sync_table.hpp holds them).
#include "fiber/semaphore.hpp"

#include "api/run_object.hpp"

namespace fiber::detail {

bool semaphore_acquire(const RunObjectRef& s, const Timeout& timeout, const char* where) {
  return ask_master(s, wire::Op::kSemaphoreAcquire, {}, timeout, where).status == wire::Status::kOk;
}

void semaphore_release(const RunObjectRef& s, const char* where) {
  (void)ask_master(s, wire::Op::kSemaphoreRelease, {}, std::nullopt, where);
}

}  // namespace fiber::detail
