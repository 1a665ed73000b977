#include "backend/kubernetes/pod_state.hpp"

#include "backend/backend.hpp"
#include "backend/labels.hpp"

namespace fiber::backend {

namespace {

using nlohmann::json;

const json& Field(const json& object, const char* key) {
  static const json kNone;
  return object.is_object() && object.contains(key) ? object[key] : kNone;
}

std::string Text(const json& object, const char* key) {
  const json& value = Field(object, key);
  return value.is_string() ? value.get<std::string>() : "";
}

// How a pod ended that its container does not say: from the pod's
// status.reason and message ("Evicted"), the reason of its
// DisruptionTarget condition ("PreemptionByScheduler",
// "EvictionByEvictionAPI", "DeletionByTaintManager", "DeletionByPodGC"),
// its phase, and whether it was deleted.
EndCause PodEnded(const std::string& reason, const std::string& message, const std::string& disruption,
                  const std::string& phase, bool deleted) {
  const std::string said = reason.empty() ? message : message.empty() ? reason : reason + ": " + message;
  const std::string why = said.empty() ? "" : " (" + said + ")";
  using namespace end_word;
  using pod_end_word::kDeleted;
  using pod_end_word::kEvicted;
  if (disruption == "PreemptionByScheduler" || reason == "Preempting")
    return EngineOnly(kPreempted, "its pod was preempted for one of higher priority" + why);
  if (disruption == "EvictionByEvictionAPI") return EngineOnly(kEvicted, "its pod was evicted (a node drain or the Eviction API)");
  if (disruption == "DeletionByTaintManager")
    return EngineOnly(kEvicted, "its pod was evicted: its node was tainted NoExecute");
  if (disruption == "TerminationByKubelet" || reason == "Evicted" || reason == "Shutdown")
    return EngineOnly(kEvicted, "its pod was evicted by its node" + why);
  if (disruption == "DeletionByPodGC" || reason == "NodeLost")
    return EngineOnly(kNodeFailed, "its pod was deleted: its node is gone" + why);
  if (deleted) return {kDeleted, "its pod was deleted"};
  return {kUnknown, "its pod " + std::string(phase == "Failed" ? "failed" : "ended") + why};
}

// Reasons a container waits for that will not go away by waiting: the
// image cannot be had, or the container cannot be made from it.
bool Hopeless(const std::string& reason) {
  for (const char* r : {"ErrImagePull", "ImagePullBackOff", "InvalidImageName", "ErrImageNeverPull",
                        "CreateContainerConfigError", "CreateContainerError", "RunContainerError"})
    if (reason == r) return true;
  return false;
}

// "reason: message", or whichever of them there is.
std::string Said(const std::string& reason, const std::string& message) {
  if (message.empty()) return reason;
  return reason.empty() ? message : reason + ": " + message;
}

// The memory limit of the pod's container named role ("64Mi"); "" when none.
std::string MemoryLimit(const json& pod, const std::string& role) {
  const json& containers = Field(Field(pod, "spec"), "containers");
  for (const json& c : containers.is_array() ? containers : json::array())
    if (Text(c, "name") == role) return Text(Field(Field(c, "resources"), "limits"), "memory");
  return "";
}

// The reason of its DisruptionTarget condition: why the pod is going
// (PreemptionByScheduler, EvictionByEvictionAPI, ...); "" when none.
std::string Disruption(const json& status) {
  const json& conditions = Field(status, "conditions");
  for (const json& c : conditions.is_array() ? conditions : json::array())
    if (Text(c, "type") == "DisruptionTarget" && Text(c, "status") == "True") return Text(c, "reason");
  return "";
}

}  // namespace

PodState ReadPodState(const json& pod, bool deleted) {
  PodState s;
  const json& labels = Field(Field(pod, "metadata"), "labels");
  s.worker_id = Text(labels, kWorkerLabel);
  const std::string role = Text(labels, kRoleLabel);
  const json& status = Field(pod, "status");
  s.phase = Text(status, "phase");
  s.node = Text(Field(pod, "spec"), "nodeName");
  s.scheduled = !s.node.empty();

  for (const json& c : Field(status, "conditions").is_array() ? Field(status, "conditions") : json::array())
    if (Text(c, "type") == "PodScheduled" && Text(c, "status") == "False")
      s.waiting = "not scheduled: " + (Text(c, "message").empty() ? Text(c, "reason") : Text(c, "message"));

  const json& statuses = Field(status, "containerStatuses");
  for (const json& c : statuses.is_array() ? statuses : json::array()) {
    if (Text(c, "name") != role) continue;
    const json& state = Field(c, "state");
    const json& waiting = Field(state, "waiting");
    const json& terminated = Field(state, "terminated");
    if (waiting.is_object()) {
      const std::string reason = Text(waiting, "reason");
      if (reason != "ContainerCreating" && reason != "PodInitializing")
        s.waiting = Said(reason, Text(waiting, "message"));
      if (Hopeless(reason)) {
        s.ended = true;
        s.end = Because(end_word::kCannotStart,
                        reason.find("Image") != std::string::npos
                            ? "its image " + Text(c, "image") + " cannot be pulled (" + s.waiting + ")"
                            : "its container cannot start (" + s.waiting + ")");
      }
    } else if (terminated.is_object()) {
      const long code = Field(terminated, "exitCode").is_number_integer()
                            ? Field(terminated, "exitCode").get<long>()
                            : -1;
      s.ended = true;
      if (code >= 0) s.exit = ExitStatus::FromCode(code);
      s.end = Text(terminated, "reason") == "OOMKilled" ? OutOfMemory(MemoryLimit(pod, role))
                                                        : EndedWith(ExitStatus::FromCode(code));
    }
  }
  if (!s.ended && (s.phase == "Failed" || s.phase == "Succeeded" || deleted)) {
    // Ended before its container said how: evicted, preempted, deleted, or
    // its node lost.
    s.ended = true;
    s.end = PodEnded(Text(status, "reason"), Text(status, "message"), Disruption(status), s.phase, deleted);
  } else if (s.ended && (s.end.word == std::string_view(end_word::kExited) ||
                         s.end.word == std::string_view(end_word::kSignal))) {
    // Its container ended (SIGTERM, as a pod is asked to stop) because the
    // cluster took its pod away: that is why it ended.
    const EndCause taken = PodEnded("", "", Disruption(status), s.phase, false);
    if (taken.engine_only) s.end = taken;
  }
  if (s.ended) s.waiting.clear();
  return s;
}

}  // namespace fiber::backend
