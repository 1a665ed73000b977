#include "master/worker_snapshot.hpp"

#include <algorithm>

#include "master/run_stats.hpp"
#include "master/worker_loss.hpp"

namespace fiber::master {

std::vector<WorkerSnapshot> SnapshotWorkers(const WorkerSet& workers, const TaskTable& tasks,
                                            std::vector<std::string> queued, Clock::time_point now) {
  std::sort(queued.begin(), queued.end());  // searched once per worker
  std::vector<WorkerSnapshot> shown;
  shown.reserve(workers.all().size() + kEndedWorkersKept);
  for (const auto& [id, w] : workers.all()) {
    WorkerSnapshot ws{id, w.pid, to_string(w.state), {}, 0, w.tasks_done, {}};
    if (const std::uint64_t task = tasks.Oldest(id)) {
      ws.task = tasks.Describe(task);
      ws.task_seconds = std::chrono::duration<double>(now - w.busy_since).count();
      if (w.state == WorkerState::kReady) ws.state = kWorkerBusy;
    }
    if (!w.connected && w.state == WorkerState::kStarting &&
        std::binary_search(queued.begin(), queued.end(), id))
      ws.state = kWorkerPending;
    shown.push_back(std::move(ws));
  }
  // The last lost ones, oldest first.
  std::vector<const WorkerEnd*> lost;
  for (auto it = workers.ended().rbegin(); it != workers.ended().rend() && lost.size() < kEndedWorkersKept; ++it)
    if (it->lost) lost.push_back(&*it);
  for (auto it = lost.rbegin(); it != lost.rend(); ++it) {
    const WorkerEnd& e = **it;
    shown.push_back({e.id, e.pid, kWorkerLost, "", 0, e.tasks_done, LossWhy(e.cause, e.task)});
  }
  return shown;
}

}  // namespace fiber::master
