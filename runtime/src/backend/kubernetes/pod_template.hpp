// A run's pods, made from worker-pod.yaml and master-pod.yaml
// (manifest_template.hpp) with what fiber puts into them (PodValues, which
// pod_manifest.hpp prepares), as the JSON the API server takes: a worker's
// pod, and the program as master in a pod (master: cluster). The run's
// secret reaches a pod as a file of the run's Secret (run_secret.hpp),
// never as a value in the pod's spec.
//
// Plain functions of their arguments; thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "backend/kubernetes/manifest_template.hpp"

namespace fiber::backend {

/// Where a pod finds the workers' key: the Secret's item, mounted
/// read-only, mode 0400; RenderPod points FIBER_CLIENT_KEY_FILE here.
inline constexpr const char* kPodSecretFile = "/var/run/fiber/client_key";

/// Names of a run's pods: "fiber-<run id>-<worker id>" for a worker's,
/// "fiber-<run id>-master" for the master's.
std::string PodName(const std::string& run_id, const std::string& worker_id);
std::string MasterPodName(const std::string& run_id);

/// What fiber puts into a worker's or the master's pod.
struct PodValues {
  std::string run_id;
  std::string worker_id;  // empty for the master
  std::string namespace_name;  // empty: the template's, else the API's default
  std::string image;              // empty: the template's, which must then have one
  std::string image_pull_policy;  // empty: the template's
  /// The program and its arguments: the container's command and args.
  /// Empty: the template's (or the image's entrypoint).
  std::vector<std::string> command;
  std::map<std::string, std::string> env;  // never the secret itself
  /// Variables whose values the pod's own fields give (the downward API):
  /// name to field path, e.g. "FIBER_LISTEN_HOST" to "status.podIP".
  std::map<std::string, std::string> env_from_fields;
  std::map<std::string, std::string> labels;  // beside fiber's own, which win
  /// Beside the template's, which these replace (the master's pod: where
  /// Prometheus scrapes its /metrics).
  std::map<std::string, std::string> annotations;
  /// The run's Secret and the key in it to mount (kClientKeyItem); the pod
  /// reads it from a file FIBER_CLIENT_KEY_FILE names. Empty secret_name:
  /// no secret is mounted.
  std::string secret_name;
  std::string secret_key;
  /// More of the Secret's items, mounted beside the key: item to path
  /// under the key's directory ("worker-pod.yaml" to
  /// "templates/worker-pod.yaml", a master's pod's templates).
  std::map<std::string, std::string> secret_files;
  /// Requests and limits alike; 0: the template's.
  int cpu_millis = 0;
  std::int64_t memory_mib = 0;
  int gpu = 0;  // nvidia.com/gpu
  /// Set: the pod uses its node's network (spec.hostNetwork), so it reaches
  /// a master listening on the node's own addresses, loopback included.
  /// Unset: the template's.
  bool host_network = false;
  /// The object that owns the pod (the run's Secret); empty name: none.
  std::string owner_name;
  std::string owner_uid;  // as the API server gave it; empty: not yet known (dry run)
};

/// A pod from the worker-pod or master-pod template: its container named
/// "worker" or "master" gets the image, command, environment and resources.
/// False with *err naming the template and what it lacks or holds wrongly.
[[nodiscard]] bool RenderPod(const Template& tmpl, const PodValues& values, nlohmann::json* pod,
                             std::string* err);

/// Where a master's pod finds the user's templates, which fiber run puts in
/// the run's Secret (RunValues.files): the directory, and the path under
/// the Secret's mount that PodValues.secret_files gives a template.
std::string PodTemplatesDir();
std::string PodTemplatePath(const std::string& name);

}  // namespace fiber::backend
