// The Kubernetes templates of a run, which users can copy and edit
// (templates/README.md): run.yaml, the run's Secret (run_secret.hpp), and
// worker-pod.yaml and master-pod.yaml, a worker's pod and the program as
// master in a pod (pod_template.hpp). A template is read once, the user's
// copy or fiber's own, and checked by rendering it: one that loads is one
// that renders.
//
// Plain functions of their arguments; thread-safe.
#pragma once

#include <string>

namespace fiber::backend {

/// The templates, by file name; a user's templates directory holds edited
/// copies under the same names.
inline constexpr const char* kRunTemplate = "run.yaml";
inline constexpr const char* kWorkerPodTemplate = "worker-pod.yaml";
inline constexpr const char* kMasterPodTemplate = "master-pod.yaml";

/// What a template makes, and for a pod, the container fiber fills.
struct TemplateShape {
  const char* name;       // kRunTemplate, kWorkerPodTemplate or kMasterPodTemplate
  const char* kind;       // "Secret" or "Pod"
  const char* container;  // kWorkerRole or kMasterRole; nullptr: no pod
};

/// The shape of the template `name`; nullptr when no template is named so.
const TemplateShape* ShapeOf(const std::string& name);

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

}  // namespace fiber::backend
