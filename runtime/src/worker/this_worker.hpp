// The bootstrap of this process when it is a worker, kept by fiber::init for
// what user code inside a task needs: its id (current_process) and the
// master's address and keys (the run's client connection, client/).
#pragma once

#include "worker/bootstrap.hpp"

namespace fiber::worker {

/// Called once by fiber::init in a worker, before it serves.
void SetThisWorker(const Bootstrap& bootstrap);
/// This worker's bootstrap; nullptr in the master.
const Bootstrap* ThisWorker();

}  // namespace fiber::worker
