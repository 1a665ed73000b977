// The Kubernetes objects of a run, made from YAML templates users can copy
// and edit (templates/README.md): the run's Secret, which holds the
// workers' key and owns everything else (run.yaml), a pod per worker
// (worker-pod.yaml), and the program as master in a pod (master-pod.yaml,
// master: cluster).
//
// A template is read as YAML and fiber's values go in as data, through
// yaml-cpp nodes, never pasted as text: no value (quotes, newlines, ": ",
// "#", a leading "-") can change the document's shape. What fiber sets
// replaces what the template says; everything else in the template is
// kept. The result is the JSON the API server takes, and, for
// `fiber run --dry-run -o yaml`, YAML with the Secret's data redacted.
//
// The secret's value is in RunValues only: a pod refers to the Secret by
// name and key, so no pod spec (which anyone who may read pods can read)
// holds it.
//
// Plain functions of their arguments; thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace fiber::backend {

/// The templates, by file name; a user's templates directory holds edited
/// copies under the same names.
inline constexpr const char* kRunTemplate = "run.yaml";
inline constexpr const char* kWorkerPodTemplate = "worker-pod.yaml";
inline constexpr const char* kMasterPodTemplate = "master-pod.yaml";

/// The key, in the run's Secret, of the workers' CURVE secret key.
inline constexpr const char* kClientKeyItem = "client-key";
/// Where a pod finds it: the Secret's one item, mounted read-only, mode
/// 0400; RenderPod points FIBER_CLIENT_KEY_FILE here.
inline constexpr const char* kPodSecretFile = "/var/run/fiber/client_key";

/// Names of a run's objects: "fiber-<run id>" for its Secret,
/// "fiber-<run id>-<worker id>" for a worker's pod, "fiber-<run id>-master"
/// for the master's.
std::string RunObjectName(const std::string& run_id);
std::string PodName(const std::string& run_id, const std::string& worker_id);
std::string MasterPodName(const std::string& run_id);

/// A template's text and where it came from.
struct Template {
  std::string name;    // kRunTemplate, kWorkerPodTemplate or kMasterPodTemplate
  std::string origin;  // the file it was read from, or "built-in worker-pod.yaml"
  std::string text;
};

/// The template `name`: the user's copy in user_dir when there is one
/// there, else fiber's own (compiled in). An empty user_dir means fiber's
/// own; a user_dir that is not a directory is an error, as is a template
/// that would not render: false with *err naming the file and what is wrong
/// ("not valid YAML: line 3, column 7: ...", "no container named
/// \"worker\" in spec.containers").
[[nodiscard]] bool LoadTemplate(const std::string& name, const std::string& user_dir, Template* out,
                                std::string* err);

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

/// What fiber puts into the run's Secret.
struct RunValues {
  std::string run_id;
  std::string namespace_name;  // empty: the template's, else the API's default
  std::map<std::string, std::string> labels;  // beside fiber's own, which win
  std::string secret_key;    // kClientKeyItem
  std::string secret_value;  // the workers' key: shown nowhere
  /// More items, item to text: the user's templates a master in a pod
  /// renders its workers' pods from.
  std::map<std::string, std::string> files;
};

/// Where a master's pod finds the user's templates, which fiber run puts in
/// the run's Secret (RunValues.files): the directory, and the path under
/// the Secret's mount that PodValues.secret_files gives a template.
std::string PodTemplatesDir();
std::string PodTemplatePath(const std::string& name);

/// The run's Secret from the run template.
[[nodiscard]] bool RenderRun(const Template& tmpl, const RunValues& values, nlohmann::json* run,
                             std::string* err);

/// Objects as `fiber run --dry-run -o yaml` prints them: one YAML document
/// each, "---" between them, every Secret's data and stringData values
/// shown as "<redacted>".
std::string DryRunYaml(const std::vector<nlohmann::json>& objects);

}  // namespace fiber::backend
