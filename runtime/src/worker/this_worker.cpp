#include "worker/this_worker.hpp"

#include <memory>

namespace fiber::worker {

namespace {
// Written once before the worker serves, read only after.
std::unique_ptr<const Bootstrap> this_worker;
}  // namespace

void SetThisWorker(const Bootstrap& bootstrap) {
  this_worker = std::make_unique<const Bootstrap>(bootstrap);
}

const Bootstrap* ThisWorker() { return this_worker.get(); }

}  // namespace fiber::worker
