// Why a worker ended: a short word a program reads (fiber top, the metrics'
// reason label) and the words a user knows ("killed by SIGSEGV", "killed
// for using more than its memory limit (OOM)", "its pod was evicted
// (...)"). Here the words of the kernel, of the master's own watch and of
// more than one engine; an engine declares the words only it has, and
// maps what it says to a cause, in its own folder (pod_state,
// job_state). Plain values and functions; thread-safe as any.
#pragma once

#include <string>
#include <string_view>

#include "os/exit_status.hpp"

namespace fiber::backend {

/// The shared words of EndCause::word, one per cause a user tells apart.
namespace end_word {
inline constexpr const char* kExited = "exited";            // its program's exit status
inline constexpr const char* kSignal = "signal";            // killed by a signal
inline constexpr const char* kOom = "oom";                  // killed for its memory limit
inline constexpr const char* kPreempted = "preempted";      // its pod or job preempted
inline constexpr const char* kCancelled = "cancelled";      // stopped before it began, or its job cancelled
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
  /// Only the engine knows it (a memory limit, an eviction, a node gone, a
  /// time limit): neither the program's own end nor the master's kill of a
  /// lost worker (its pod deleted, its job cancelled) gives it.
  bool engine_only = false;

  bool operator==(const EndCause& other) const {
    return std::string_view(word) == other.word && text == other.text && engine_only == other.engine_only;
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
/// The same for a cause only the engine knows (engine_only).
EndCause EngineOnly(const char* word, std::string text);

}  // namespace fiber::backend
