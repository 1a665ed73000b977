#include "kube/yaml_edit.hpp"

namespace fiber::kube {

const char* Describe(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map:
      return "a mapping";
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Scalar:
      return "a single value";
    default:
      return "empty";
  }
}

YAML::Node StringNode(const std::string& value) { return YAML::Node(value); }

YAML::Node Tagged(const std::string& value, const char* tag) {
  YAML::Node node(value);
  node.SetTag(tag);
  return node;
}

bool ChildOf(YAML::Node parent, const char* key, YAML::NodeType::value kind, const std::string& at,
             YAML::Node* out, std::string* why) {
  if (!parent[key] || parent[key].IsNull()) parent[key] = YAML::Node(kind);
  if (parent[key].Type() != kind) {
    *why = at + " is " + Describe(parent[key]) + ", not " +
           (kind == YAML::NodeType::Map ? "a mapping" : "a list");
    return false;
  }
  out->reset(parent[key]);
  return true;
}

std::string NameOf(const YAML::Node& entry) {
  return entry.IsMap() && entry["name"] && entry["name"].IsScalar() ? entry["name"].Scalar() : "";
}

bool ReplaceNamed(YAML::Node parent, const char* key, const std::string& at,
                  const std::set<std::string>& names, const std::vector<YAML::Node>& added,
                  std::string* why) {
  YAML::Node list;
  if (!ChildOf(parent, key, YAML::NodeType::Sequence, at, &list, why)) return false;
  YAML::Node kept(YAML::NodeType::Sequence);
  for (std::size_t i = 0; i < list.size(); ++i)
    if (!names.count(NameOf(list[i]))) kept.push_back(list[i]);
  for (const YAML::Node& entry : added) kept.push_back(entry);
  parent[key] = kept;
  return true;
}

}  // namespace fiber::kube
