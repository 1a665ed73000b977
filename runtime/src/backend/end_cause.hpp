// Why a worker ended, for every engine the same: a short word a program
// reads (fiber top, the metrics' reason label) and the words a user knows
// ("killed by SIGSEGV", "killed for using more than its memory limit
// (OOM)", "its pod was evicted (...)", "its Slurm job reached its time
// limit"). The one mapping from what engines, the kernel and the master's
// own watch say to those: backends and the master build causes here only.
// Plain values and functions; thread-safe as any.
#pragma once

#include <string>
#include <string_view>

#include "os/exit_status.hpp"

namespace fiber::backend {

/// The words of EndCause::word, one per cause a user tells apart.
namespace end_word {
inline constexpr const char* kExited = "exited";            // its program's exit status
inline constexpr const char* kSignal = "signal";            // killed by a signal
inline constexpr const char* kOom = "oom";                  // killed for its memory limit
inline constexpr const char* kEvicted = "evicted";          // its pod evicted, its node drained
inline constexpr const char* kPreempted = "preempted";      // its pod or job preempted
inline constexpr const char* kDeleted = "deleted";          // its pod or container removed by someone
inline constexpr const char* kCancelled = "cancelled";      // its Slurm job cancelled
inline constexpr const char* kTimeLimit = "time_limit";     // its Slurm job's time limit or deadline
inline constexpr const char* kNodeFailed = "node_failed";   // its node failed or is gone
inline constexpr const char* kCannotStart = "cannot_start"; // its image or container cannot start
inline constexpr const char* kStartTimeout = "start_timeout";      // did not connect in time
inline constexpr const char* kTaskTimeout = "task_timeout";        // killed: a task ran past task_timeout
inline constexpr const char* kConnectionLost = "connection_lost";  // connection gone, process silent
inline constexpr const char* kProtocol = "protocol";        // it broke the wire protocol or a bound
inline constexpr const char* kUnknown = "unknown";          // the engine did not say
}  // namespace end_word

struct EndCause {
  const char* word = end_word::kUnknown;
  std::string text;  // for the user: "killed by SIGSEGV"

  bool operator==(const EndCause& other) const {
    return std::string_view(word) == other.word && text == other.text;
  }
};

/// "exit status 3" (exited) or "killed by SIGSEGV" (signal).
EndCause EndedWith(ExitStatus status);
/// Killed by the kernel for its memory limit, whatever engine said it
/// (Docker's State.OOMKilled, Kubernetes' OOMKilled, Slurm's
/// OUT_OF_MEMORY); limit ("64Mi") said when known.
EndCause OutOfMemory(const std::string& limit = "");
/// A cause of word with text: for the master's own causes and the few an
/// engine words itself.
EndCause Because(const char* word, std::string text);

/// How a pod ended that its container does not say: from the pod's
/// status.reason and message ("Evicted"), the reason of its
/// DisruptionTarget condition ("PreemptionByScheduler",
/// "EvictionByEvictionAPI", "DeletionByTaintManager", "DeletionByPodGC"),
/// its phase, and whether it was deleted.
EndCause PodEnded(const std::string& reason, const std::string& message, const std::string& disruption,
                  const std::string& phase, bool deleted);
/// How a Slurm job in an ended state (squeue's or sacct's State) went,
/// its exit code read as a wait status.
EndCause SlurmJobEnded(const std::string& state, ExitStatus status);

}  // namespace fiber::backend
