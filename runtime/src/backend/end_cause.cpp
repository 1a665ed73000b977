#include "backend/end_cause.hpp"

namespace fiber::backend {

EndCause EndedWith(ExitStatus status) {
  return {status.killed() ? end_word::kSignal : end_word::kExited, status.Describe()};
}

EndCause OutOfMemory(const std::string& limit) {
  return {end_word::kOom,
          "killed for using more than its memory limit" + (limit.empty() ? "" : " of " + limit) + " (OOM)"};
}

EndCause Because(const char* word, std::string text) { return {word, std::move(text)}; }

EndCause PodEnded(const std::string& reason, const std::string& message, const std::string& disruption,
                  const std::string& phase, bool deleted) {
  const std::string said = reason.empty() ? message : message.empty() ? reason : reason + ": " + message;
  const std::string why = said.empty() ? "" : " (" + said + ")";
  using namespace end_word;
  if (disruption == "PreemptionByScheduler" || reason == "Preempting")
    return {kPreempted, "its pod was preempted for one of higher priority" + why};
  if (disruption == "EvictionByEvictionAPI") return {kEvicted, "its pod was evicted (a node drain or the Eviction API)"};
  if (disruption == "DeletionByTaintManager")
    return {kEvicted, "its pod was evicted: its node was tainted NoExecute"};
  if (disruption == "TerminationByKubelet" || reason == "Evicted" || reason == "Shutdown")
    return {kEvicted, "its pod was evicted by its node" + why};
  if (disruption == "DeletionByPodGC" || reason == "NodeLost")
    return {kNodeFailed, "its pod was deleted: its node is gone" + why};
  if (deleted) return {kDeleted, "its pod was deleted"};
  return {kUnknown, "its pod " + std::string(phase == "Failed" ? "failed" : "ended") + why};
}

EndCause SlurmJobEnded(const std::string& state, ExitStatus status) {
  using namespace end_word;
  if (state == "COMPLETED" || state == "FAILED") return EndedWith(status);
  if (state == "OUT_OF_MEMORY") return OutOfMemory();
  if (state == "CANCELLED") return {kCancelled, "its Slurm job was cancelled"};
  if (state == "TIMEOUT") return {kTimeLimit, "its Slurm job reached its time limit"};
  if (state == "DEADLINE") return {kTimeLimit, "its Slurm job reached its deadline"};
  if (state == "PREEMPTED") return {kPreempted, "its Slurm job was preempted"};
  if (state == "NODE_FAIL") return {kNodeFailed, "its node failed"};
  if (state == "BOOT_FAIL") return {kNodeFailed, "its node failed to boot"};
  return {kUnknown, "its Slurm job ended (" + state + ", " + status.Describe() + ")"};
}

}  // namespace fiber::backend
