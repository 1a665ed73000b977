// The object a template (manifest_template.hpp) makes, as yaml-cpp nodes,
// for the two that render one: the run's Secret (run_secret.cpp) and a pod
// (pod_template.cpp). The template is read as YAML and fiber's values go in
// as data, through nodes, never pasted as text: no value (quotes, newlines,
// ": ", "#", a leading "-") can change the document's shape. What fiber
// sets replaces what the template says; everything else in the template is
// kept.
//
// Plain functions of their arguments; thread-safe.
#pragma once

#include <yaml-cpp/yaml.h>

#include <map>
#include <string>

#include "backend/kubernetes/manifest_template.hpp"

namespace fiber::backend {

/// The template as one object of its shape's kind, apiVersion and kind
/// set; false with *why when it is not valid YAML, is empty, holds more
/// than one document, or is not a mapping of that kind.
[[nodiscard]] bool ParseTemplate(const Template& tmpl, const TemplateShape& shape, YAML::Node* root,
                                 std::string* why);

/// The labels of a run's object: fiber's (its run, its role, and the
/// worker's id unless worker_id is empty) over `extra`.
std::map<std::string, std::string> RunObjectLabels(const std::map<std::string, std::string>& extra,
                                                   const std::string& run_id, const char* role,
                                                   const std::string& worker_id);

/// Sets the metadata fiber owns: name, namespace, fiber's labels over the
/// template's and the caller's, fiber's annotations over the template's,
/// and the owner (the run's Secret; none when owner_name is empty).
[[nodiscard]] bool FillMetadata(YAML::Node root, const std::string& name, const std::string& namespace_name,
                                const std::map<std::string, std::string>& labels,
                                const std::map<std::string, std::string>& annotations,
                                const std::string& owner_name, const std::string& owner_uid, std::string* why);

/// fill(&why), with any error yaml-cpp throws (none is expected: every node
/// is checked before it is used) as a failure rather than an escape; false
/// with *err the template's origin and why.
template <typename Fill>
[[nodiscard]] bool GuardedFill(const Template& tmpl, Fill fill, std::string* err) {
  std::string why;
  bool filled = false;
  try {
    filled = fill(&why);
  } catch (const YAML::Exception& e) {
    why = e.what();
  }
  if (!filled) *err = tmpl.origin + ": " + why;
  return filled;
}

}  // namespace fiber::backend
