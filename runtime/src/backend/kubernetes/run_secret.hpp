// The run's Secret, made from run.yaml (manifest_template.hpp): it holds
// the workers' key, which a pod mounts as a file (pod_template.hpp), and
// owns the run's pods, so that deleting it deletes them. The key's value is
// in RunValues only: a pod refers to the Secret by name and key, so no pod
// spec (which anyone who may read pods can read) holds it.
//
// Plain functions of their arguments; thread-safe.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "backend/kubernetes/manifest_template.hpp"

namespace fiber::backend {

/// The key, in the run's Secret, of the workers' CURVE secret key.
inline constexpr const char* kClientKeyItem = "client-key";

/// The run's Secret's name, "fiber-<run id>", with which its pods' names
/// begin (PodName).
std::string RunObjectName(const std::string& run_id);

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

/// The run's Secret from the run template, as the JSON the API server
/// takes. False with *err naming the template and what it holds wrongly.
[[nodiscard]] bool RenderRun(const Template& tmpl, const RunValues& values, nlohmann::json* run,
                             std::string* err);

}  // namespace fiber::backend
