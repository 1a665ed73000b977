// Editing a manifest's YAML in place, as the objects made from fiber's
// templates are (backend/kubernetes/: template_object, run_secret,
// pod_template): children made where they are missing, named entries of a
// list replaced, and an inserted value kept a string, whatever it looks
// like. A node of the wrong type is an error naming where it is.
//
// Plain functions of their arguments; thread-safe.
#pragma once

#include <yaml-cpp/yaml.h>

#include <set>
#include <string>
#include <vector>

namespace fiber::kube {

/// What a node is, for errors: "a mapping", "a list", "a single value",
/// "empty".
const char* Describe(const YAML::Node& node);

/// A new string node: a value fiber inserts is a string, whatever it looks
/// like, and takes no tag from what it replaces.
YAML::Node StringNode(const std::string& value);

/// A new scalar of another type: kIntTag or kBoolTag (kube/yaml_json.hpp).
YAML::Node Tagged(const std::string& value, const char* tag);

/// parent[key] as a mapping (`kind` Map) or a list (Sequence), made when
/// absent or empty; false with *why, naming it as `at`, when it is
/// something else.
[[nodiscard]] bool ChildOf(YAML::Node parent, const char* key, YAML::NodeType::value kind, const std::string& at,
                           YAML::Node* out, std::string* why);

/// A list entry's "name" ("" when it has none): containers, env, volumes.
std::string NameOf(const YAML::Node& entry);

/// parent[key], a list, without its entries named in `names`; then
/// `added` appended.
[[nodiscard]] bool ReplaceNamed(YAML::Node parent, const char* key, const std::string& at,
                                const std::set<std::string>& names, const std::vector<YAML::Node>& added,
                                std::string* why);

}  // namespace fiber::kube
