// What a worker's pod, as the API server reports it, means to its master:
// still coming (and why it is not running yet, in the scheduler's or the
// kubelet's words), running, or ended (and how, in the words the other
// backends use). Read by the Kubernetes backend from its watch, and by
// fiber ps. Plain functions of the pod's JSON.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "backend/end_cause.hpp"
#include "os/exit_status.hpp"

namespace fiber::backend {

/// The end words only pods have, beside the shared ones (backend/end_cause.hpp).
namespace pod_end_word {
inline constexpr const char* kEvicted = "evicted";  // its pod evicted, its node drained
inline constexpr const char* kDeleted = "deleted";  // its pod removed by someone
}  // namespace pod_end_word

struct PodState {
  std::string worker_id;  // its fiber.worker label
  std::string phase;      // Pending, Running, Succeeded, Failed, Unknown
  /// The node chosen for it (spec.nodeName); "" while it waits for the scheduler.
  std::string node;
  /// A node was chosen for it: it left the scheduler's queue.
  bool scheduled = false;
  /// Why it does not run yet, for the user: "not scheduled: 0/1 nodes are
  /// available: 1 Insufficient cpu." or "ImagePullBackOff: ..."; empty when
  /// nothing holds it up.
  std::string waiting;
  /// It ended, or never can start (its image cannot be pulled, its
  /// container cannot be made): why.
  bool ended = false;
  EndCause end;
  /// How its container ended, when it ended with an exit code (its
  /// runtime's: 128+N for signal N).
  std::optional<ExitStatus> exit;
};

/// The state of a pod object (a watch event's or a list item's); deleted:
/// the object of a DELETED event, which ended whatever it said.
PodState ReadPodState(const nlohmann::json& pod, bool deleted = false);

}  // namespace fiber::backend
