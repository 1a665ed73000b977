// A pool's workers as fiber top, ps RUN and the metrics show them at one
// moment: the live ones, then the last lost.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "master/task_table.hpp"
#include "master/worker_set.hpp"

namespace fiber::master {

/// One worker as fiber top shows it.
struct WorkerSnapshot {
  std::string id;
  long pid = 0;
  std::string state;         // to_string(WorkerState), or kWorkerPending, kWorkerBusy, kWorkerLost
  std::string task;          // what it runs (TaskTable::Running); empty when idle
  double task_seconds = 0;   // how long it has held it
  std::uint64_t tasks_done = 0;
  std::string ended;         // a lost one's: why
};

/// The live workers at now (busy while they hold a task, pending while
/// their backend has them queued: queued, its ids), then the last lost ones
/// (kEndedWorkersKept), oldest first.
std::vector<WorkerSnapshot> SnapshotWorkers(const WorkerSet& workers, const TaskTable& tasks,
                                            std::vector<std::string> queued, Clock::time_point now);

}  // namespace fiber::master
