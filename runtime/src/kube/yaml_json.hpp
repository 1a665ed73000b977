// YAML as the Kubernetes API reads it. kubectl turns a manifest's YAML into
// the API's JSON with YAML 1.1's rules for unquoted scalars (0400 is octal,
// yes is true, 500m a string), and so does fiber, so that a template means
// to fiber what it means to kubectl. Both ways: a manifest's YAML into the
// JSON the API server takes, and that JSON back into YAML kubectl reads.
#pragma once

#include <yaml-cpp/yaml.h>

#include <nlohmann/json.hpp>
#include <string>

namespace fiber::kube {

/// Tags for the values fiber inserts that are not strings (an inserted
/// scalar without a tag is a string, whatever it looks like).
inline constexpr const char* kIntTag = "tag:yaml.org,2002:int";
inline constexpr const char* kBoolTag = "tag:yaml.org,2002:bool";

/// The JSON value of a YAML node. False with *err naming the path (from
/// `at`, e.g. "spec.containers[0].env") of what JSON cannot hold: a key that
/// is not a scalar, a key given twice, a scalar whose tag it does not know
/// or whose text contradicts its tag, an unquoted .inf or .nan, text that is
/// not UTF-8.
[[nodiscard]] bool YamlToJson(const YAML::Node& node, const std::string& at, nlohmann::json* out,
                              std::string* err);

/// The value as block-style YAML that YamlToJson and kubectl read back as
/// the same value: strings that would read as another type ("true", "0400",
/// "") are quoted, and characters a reader would take for line breaks or
/// refuse are escaped.
std::string JsonToYaml(const nlohmann::json& value);

}  // namespace fiber::kube
