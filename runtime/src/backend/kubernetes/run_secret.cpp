#include "backend/kubernetes/run_secret.hpp"

#include "backend/kubernetes/template_object.hpp"
#include "backend/labels.hpp"
#include "kube/yaml_edit.hpp"
#include "kube/yaml_json.hpp"

namespace fiber::backend {
namespace {

bool FillRun(const Template& tmpl, const TemplateShape& shape, const RunValues& v, nlohmann::json* run,
             std::string* why) {
  YAML::Node root;
  YAML::Node string_data;
  if (!ParseTemplate(tmpl, shape, &root, why) ||
      !FillMetadata(root, RunObjectName(v.run_id), v.namespace_name,
                    RunObjectLabels(v.labels, v.run_id, kRunRole, ""), {}, "", "", why) ||
      !kube::ChildOf(root, "stringData", YAML::NodeType::Map, "stringData", &string_data, why))
    return false;
  string_data[v.secret_key] = kube::StringNode(v.secret_value);
  for (const auto& [key, text] : v.files) string_data[key] = kube::StringNode(text);
  // stringData wins over data on the server; a stale copy in data would
  // only confuse a reader.
  if (root["data"] && root["data"].IsMap()) root["data"].remove(v.secret_key);
  return kube::YamlToJson(root, "", run, why);
}

}  // namespace

std::string RunObjectName(const std::string& run_id) { return RunName(run_id); }

bool RenderRun(const Template& tmpl, const RunValues& values, nlohmann::json* run, std::string* err) {
  const TemplateShape* shape = ShapeOf(tmpl.name);
  if (!shape || shape->container) {
    *err = tmpl.origin + " is not the run's template";
    return false;
  }
  return GuardedFill(tmpl, [&](std::string* why) { return FillRun(tmpl, *shape, values, run, why); }, err);
}

}  // namespace fiber::backend
