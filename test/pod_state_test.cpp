// What a pod's status, as the API server reports it, means to the master:
// why it waits, whether it ended and how. The JSON below is in the shape
// kube-apiserver and the kubelet write (v1.34).
#include <doctest/doctest.h>

#include "backend/kubernetes/pod_state.hpp"

using fiber::ExitStatus;
using fiber::backend::EndCause;
namespace word = fiber::backend::end_word;
namespace pod_word = fiber::backend::pod_end_word;
using fiber::backend::PodState;
using fiber::backend::ReadPodState;
using nlohmann::json;

namespace {

json Pod(const std::string& phase, json status_extra = json::object()) {
  json pod = {{"metadata", {{"name", "fiber-r1-w3"}, {"labels", {{"fiber.run", "r1"}, {"fiber.role", "worker"}, {"fiber.worker", "w3"}}}}},
              {"status", {{"phase", phase}}}};
  pod["status"].update(status_extra);
  return pod;
}

json Container(const json& state, const std::string& name = "worker") {
  return {{"containerStatuses", json::array({{{"name", name}, {"image", "reg/prog:1"}, {"state", state}}})}};
}

}  // namespace

TEST_CASE("a pod no node can take waits with the scheduler's message, and has not ended") {
  const PodState s = ReadPodState(Pod("Pending", {{"conditions", json::array({{{"type", "PodScheduled"},
      {"status", "False"}, {"reason", "Unschedulable"},
      {"message", "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available."}}})}}));
  CHECK(s.worker_id == "w3");
  CHECK(s.phase == "Pending");
  CHECK_FALSE(s.ended);
  CHECK(s.waiting == "not scheduled: 0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available.");
}

TEST_CASE("a pod is scheduled once a node was chosen for it, waiting in the scheduler's queue before") {
  json pod = Pod("Pending");
  CHECK_FALSE(ReadPodState(pod).scheduled);
  CHECK(ReadPodState(pod).node.empty());
  pod["spec"] = {{"nodeName", "kwok-3"}};
  CHECK(ReadPodState(pod).scheduled);
  CHECK(ReadPodState(pod).node == "kwok-3");
}

TEST_CASE("a pod being made or running neither waits nor has ended") {
  CHECK(ReadPodState(Pod("Pending", Container({{"waiting", {{"reason", "ContainerCreating"}}}}))).waiting.empty());
  const PodState running = ReadPodState(Pod("Running", Container({{"running", {{"startedAt", "2026-11-23T10:00:00Z"}}}})));
  CHECK_FALSE(running.ended);
  CHECK(running.waiting.empty());
}

TEST_CASE("an image that cannot be pulled ends the worker, naming the image and the kubelet's reason") {
  const PodState s = ReadPodState(Pod("Pending", Container({{"waiting", {{"reason", "ImagePullBackOff"},
      {"message", "Back-off pulling image \"reg/prog:1\""}}}})));
  CHECK(s.ended);
  CHECK(s.end.word == std::string(fiber::backend::end_word::kCannotStart));
  CHECK(s.end.text == "its image reg/prog:1 cannot be pulled (ImagePullBackOff: Back-off pulling image \"reg/prog:1\")");
  CHECK(s.waiting.empty());
}

TEST_CASE("an ended container says how, as the other backends do") {
  PodState s = ReadPodState(Pod("Failed", Container({{"terminated", {{"exitCode", 3}, {"reason", "Error"}}}})));
  CHECK(s.ended);
  CHECK(s.end == EndCause{word::kExited, "exit status 3"});
  CHECK(s.exit == ExitStatus::Exited(3));
  s = ReadPodState(Pod("Failed", Container({{"terminated", {{"exitCode", 137}, {"reason", "Error"}}}})));
  CHECK(s.end == EndCause{word::kSignal, "killed by SIGKILL"});
  CHECK(s.exit == ExitStatus::Killed(9));
  s = ReadPodState(Pod("Failed", Container({{"terminated", {{"exitCode", 137}, {"reason", "OOMKilled"}}}})));
  CHECK(s.end == fiber::backend::EngineOnly(word::kOom, "killed for using more than its memory limit (OOM)"));
  // With the limit its container was given, said.
  json pod = Pod("Failed", Container({{"terminated", {{"exitCode", 137}, {"reason", "OOMKilled"}}}}));
  pod["spec"] = {{"containers", json::array({{{"name", "worker"}, {"resources", {{"limits", {{"memory", "64Mi"}}}}}}})}};
  CHECK(ReadPodState(pod).end == fiber::backend::EngineOnly(word::kOom, "killed for using more than its memory limit of 64Mi (OOM)"));
}

TEST_CASE("a sidecar's state is not the worker's") {
  const PodState s = ReadPodState(Pod("Running", Container({{"terminated", {{"exitCode", 1}}}}, "sidecar")));
  CHECK_FALSE(s.ended);
}

TEST_CASE("a pod that failed before its container said anything (evicted) has ended with the pod's reason") {
  const PodState s = ReadPodState(Pod("Failed", {{"reason", "Evicted"}, {"message", "The node was low on resource: memory."}}));
  CHECK(s.ended);
  CHECK(s.end == fiber::backend::EngineOnly(pod_word::kEvicted, "its pod was evicted by its node (Evicted: The node was low on resource: memory.)"));
}

// The conditions kube-apiserver, the scheduler and the taint manager add
// to a pod as they delete it (the DisruptionTarget condition of v1.26 on),
// as the DELETED event of a watch carries them.
namespace {

json Deleted(const std::string& disruption, const std::string& message) {
  return Pod("Running", {{"conditions", json::array({{{"type", "DisruptionTarget"}, {"status", "True"},
                                                       {"reason", disruption}, {"message", message}}})}});
}

}  // namespace

TEST_CASE("a deleted pod says whether it was preempted, evicted, lost with its node, or deleted by someone") {
  CHECK(ReadPodState(Deleted("PreemptionByScheduler", "default-scheduler: preempting to accommodate a higher priority pod"), true).end.word ==
        std::string(word::kPreempted));
  CHECK(ReadPodState(Deleted("EvictionByEvictionAPI", "Eviction API: evicting"), true).end ==
        fiber::backend::EngineOnly(pod_word::kEvicted, "its pod was evicted (a node drain or the Eviction API)"));
  CHECK(ReadPodState(Deleted("DeletionByTaintManager", "Taint manager: deleting due to NoExecute taint"), true).end.word ==
        std::string(pod_word::kEvicted));
  CHECK(ReadPodState(Deleted("DeletionByPodGC", "PodGC: node no longer exists"), true).end.word ==
        std::string(word::kNodeFailed));
  const PodState deleted = ReadPodState(Pod("Running"), true);
  CHECK(deleted.ended);
  CHECK(deleted.end == EndCause{pod_word::kDeleted, "its pod was deleted"});
  // A DisruptionTarget the pod is not (yet) ended by says nothing.
  CHECK_FALSE(ReadPodState(Deleted("PreemptionByScheduler", "preempting")).ended);
}

TEST_CASE("a container that ended as its pod was evicted or preempted ended because of that, not of its SIGTERM") {
  json evicted = Deleted("EvictionByEvictionAPI", "Eviction API: evicting");
  evicted["status"].update(Container({{"terminated", {{"exitCode", 143}, {"reason", "Error"}}}}));
  CHECK(ReadPodState(evicted).end == fiber::backend::EngineOnly(pod_word::kEvicted, "its pod was evicted (a node drain or the Eviction API)"));
  json preempted = Deleted("PreemptionByScheduler", "preempting");
  preempted["status"].update(Container({{"terminated", {{"exitCode", 0}, {"reason", "Completed"}}}}));
  CHECK(ReadPodState(preempted).end.word == std::string(word::kPreempted));
  // Killed for its memory as it went: that is still why.
  json oom = Deleted("EvictionByEvictionAPI", "Eviction API: evicting");
  oom["status"].update(Container({{"terminated", {{"exitCode", 137}, {"reason", "OOMKilled"}}}}));
  CHECK(ReadPodState(oom).end.word == std::string(word::kOom));
  // A disruption of no kind fiber knows leaves the container's word.
  json odd = Deleted("SomethingNew", "?");
  odd["status"].update(Container({{"terminated", {{"exitCode", 143}, {"reason", "Error"}}}}));
  CHECK(ReadPodState(odd).end == EndCause{word::kSignal, "killed by SIGTERM"});
}

TEST_CASE("malformed status fields are read as absent, never thrown on") {
  for (const json& odd : {json(nullptr), json::array(), json("x"),
                          json({{"metadata", 1}, {"status", {{"phase", 7}, {"conditions", "no"}, {"containerStatuses", {1, 2}}}}})}) {
    const PodState s = ReadPodState(odd);
    CHECK_FALSE(s.ended);
    CHECK(s.worker_id.empty());
  }
}
