#include "backend/kubernetes/template_object.hpp"

#include <vector>

#include "backend/labels.hpp"
#include "kube/yaml_edit.hpp"

namespace fiber::backend {

bool ParseTemplate(const Template& tmpl, const TemplateShape& shape, YAML::Node* root, std::string* why) {
  std::vector<YAML::Node> documents;
  try {
    documents = YAML::LoadAll(tmpl.text);
  } catch (const YAML::Exception& e) {
    *why = "not valid YAML";
    if (!e.mark.is_null())
      *why += ": line " + std::to_string(e.mark.line + 1) + ", column " + std::to_string(e.mark.column + 1);
    *why += ": " + e.msg;
    return false;
  }
  if (documents.empty() || documents[0].IsNull()) {
    *why = std::string("is empty: it should be one Kubernetes ") + shape.kind;
    return false;
  }
  if (documents.size() > 1) {
    *why = "holds " + std::to_string(documents.size()) + " YAML documents: a template is one Kubernetes " +
           shape.kind;
    return false;
  }
  if (!documents[0].IsMap()) {
    *why = std::string("is ") + kube::Describe(documents[0]) + ", not a Kubernetes " + shape.kind;
    return false;
  }
  const YAML::Node kind = documents[0]["kind"];
  if (kind && !(kind.IsScalar() && kind.Scalar() == shape.kind)) {
    *why = std::string("kind is ") + (kind.IsScalar() ? kind.Scalar() : kube::Describe(kind)) + ", but " +
           tmpl.name + " makes a " + shape.kind;
    return false;
  }
  root->reset(documents[0]);
  (*root)["apiVersion"] = kube::StringNode("v1");
  (*root)["kind"] = kube::StringNode(shape.kind);
  return true;
}

std::map<std::string, std::string> RunObjectLabels(const std::map<std::string, std::string>& extra,
                                                   const std::string& run_id, const char* role,
                                                   const std::string& worker_id) {
  std::map<std::string, std::string> labels = extra;
  labels[kRunLabel] = run_id;
  labels[kRoleLabel] = role;
  if (worker_id.empty())
    labels.erase(kWorkerLabel);
  else
    labels[kWorkerLabel] = worker_id;
  return labels;
}

bool FillMetadata(YAML::Node root, const std::string& name, const std::string& namespace_name,
                  const std::map<std::string, std::string>& labels,
                  const std::map<std::string, std::string>& annotations, const std::string& owner_name,
                  const std::string& owner_uid, std::string* why) {
  YAML::Node metadata;
  YAML::Node label_map;
  if (!kube::ChildOf(root, "metadata", YAML::NodeType::Map, "metadata", &metadata, why) ||
      !kube::ChildOf(metadata, "labels", YAML::NodeType::Map, "metadata.labels", &label_map, why))
    return false;
  metadata["name"] = kube::StringNode(name);
  if (!namespace_name.empty())
    metadata["namespace"] = kube::StringNode(namespace_name);
  else if (metadata["namespace"] && metadata["namespace"].IsScalar() && metadata["namespace"].Scalar().empty())
    metadata.remove("namespace");
  for (const auto& [key, value] : labels) label_map[key] = kube::StringNode(value);
  if (!annotations.empty()) {
    YAML::Node annotation_map;
    if (!kube::ChildOf(metadata, "annotations", YAML::NodeType::Map, "metadata.annotations", &annotation_map,
                       why))
      return false;
    for (const auto& [key, value] : annotations) annotation_map[key] = kube::StringNode(value);
  }
  if (owner_name.empty()) {
    metadata.remove("ownerReferences");
    return true;
  }
  YAML::Node owner(YAML::NodeType::Map);
  owner["apiVersion"] = kube::StringNode("v1");
  owner["kind"] = kube::StringNode("Secret");
  owner["name"] = kube::StringNode(owner_name);
  if (!owner_uid.empty()) owner["uid"] = kube::StringNode(owner_uid);
  YAML::Node owners(YAML::NodeType::Sequence);
  owners.push_back(owner);
  metadata["ownerReferences"] = owners;
  return true;
}

}  // namespace fiber::backend
