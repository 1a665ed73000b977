#include "backend/kubernetes/pod_template.hpp"

#include <set>

#include "backend/kubernetes/run_secret.hpp"
#include "backend/kubernetes/template_object.hpp"
#include "backend/labels.hpp"
#include "config/variables.hpp"
#include "kube/yaml_edit.hpp"
#include "kube/yaml_json.hpp"

namespace fiber::backend {
namespace {

/// The run's Secret as pods see it: one file, kPodSecretFile, readable by
/// its owner only.
constexpr const char* kSecretVolume = "fiber-secret";
constexpr int kSecretFileMode = 0400;
const std::string kSecretFile = kPodSecretFile;
const std::string kSecretDir = kSecretFile.substr(0, kSecretFile.rfind('/'));
const std::string kSecretFileName = kSecretFile.substr(kSecretFile.rfind('/') + 1);
const std::string kTemplatesSubdir = "templates";  // in the Secret's mount

/// Requests and limits alike, where the run gives a value.
bool FillResources(YAML::Node container, const std::string& at, const PodValues& v, std::string* why) {
  if (v.cpu_millis <= 0 && v.memory_mib <= 0 && v.gpu <= 0) return true;
  YAML::Node resources;
  if (!kube::ChildOf(container, "resources", YAML::NodeType::Map, at + ".resources", &resources, why))
    return false;
  for (const char* side : {"requests", "limits"}) {
    YAML::Node amounts;
    if (!kube::ChildOf(resources, side, YAML::NodeType::Map, at + ".resources." + side, &amounts, why))
      return false;
    if (v.cpu_millis > 0) amounts["cpu"] = kube::StringNode(std::to_string(v.cpu_millis) + "m");
    if (v.memory_mib > 0) amounts["memory"] = kube::StringNode(std::to_string(v.memory_mib) + "Mi");
    if (v.gpu > 0) amounts["nvidia.com/gpu"] = kube::StringNode(std::to_string(v.gpu));
  }
  return true;
}

/// The container fiber fills: image, command, environment, resources and
/// the Secret's mount.
bool FillContainer(YAML::Node container, const std::string& at, const PodValues& v, std::string* why) {
  if (!v.image.empty()) {
    container["image"] = kube::StringNode(v.image);
  } else if (!container["image"] || !container["image"].IsScalar() || container["image"].Scalar().empty()) {
    *why = at + " has no image, and the run gives none";
    return false;
  }
  if (!v.image_pull_policy.empty()) container["imagePullPolicy"] = kube::StringNode(v.image_pull_policy);
  if (!v.command.empty()) {
    YAML::Node command(YAML::NodeType::Sequence);
    YAML::Node args(YAML::NodeType::Sequence);
    command.push_back(kube::StringNode(v.command.front()));
    for (std::size_t i = 1; i < v.command.size(); ++i) args.push_back(kube::StringNode(v.command[i]));
    container["command"] = command;
    container["args"] = args;
  }

  // A worker reads the key as its bootstrap says; the master, as the run's
  // workers' key (master: cluster).
  std::map<std::string, std::string> env = v.env;
  if (!v.secret_name.empty())
    env[v.worker_id.empty() ? config::kRunKeyFileVariable : config::kSecretFileVariable] = kSecretFile;
  std::set<std::string> names;
  std::vector<YAML::Node> entries;
  for (const auto& [name, value] : env) {
    YAML::Node entry(YAML::NodeType::Map);
    entry["name"] = kube::StringNode(name);
    entry["value"] = kube::StringNode(value);
    names.insert(name);
    entries.push_back(entry);
  }
  for (const auto& [name, field] : v.env_from_fields) {
    YAML::Node ref(YAML::NodeType::Map);
    ref["fieldPath"] = kube::StringNode(field);
    YAML::Node from(YAML::NodeType::Map);
    from["fieldRef"] = ref;
    YAML::Node entry(YAML::NodeType::Map);
    entry["name"] = kube::StringNode(name);
    entry["valueFrom"] = from;
    if (names.insert(name).second) entries.push_back(entry);
  }
  if (!kube::ReplaceNamed(container, "env", at + ".env", names, entries, why)) return false;

  std::vector<YAML::Node> mounts;
  if (!v.secret_name.empty()) {
    YAML::Node mount(YAML::NodeType::Map);
    mount["name"] = kube::StringNode(kSecretVolume);
    mount["mountPath"] = kube::StringNode(kSecretDir);
    mount["readOnly"] = kube::Tagged("true", kube::kBoolTag);
    mounts.push_back(mount);
  }
  return kube::ReplaceNamed(container, "volumeMounts", at + ".volumeMounts", {kSecretVolume}, mounts, why) &&
         FillResources(container, at, v, why);
}

/// The run's Secret as a volume of one file: only the key asked for.
YAML::Node SecretVolume(const PodValues& v) {
  YAML::Node item(YAML::NodeType::Map);
  item["key"] = kube::StringNode(v.secret_key);
  item["path"] = kube::StringNode(kSecretFileName);
  YAML::Node items(YAML::NodeType::Sequence);
  items.push_back(item);
  for (const auto& [key, path] : v.secret_files) {
    YAML::Node more(YAML::NodeType::Map);
    more["key"] = kube::StringNode(key);
    more["path"] = kube::StringNode(path);
    items.push_back(more);
  }
  YAML::Node secret(YAML::NodeType::Map);
  secret["secretName"] = kube::StringNode(v.secret_name);
  secret["defaultMode"] = kube::Tagged(std::to_string(kSecretFileMode), kube::kIntTag);
  secret["items"] = items;
  YAML::Node volume(YAML::NodeType::Map);
  volume["name"] = kube::StringNode(kSecretVolume);
  volume["secret"] = secret;
  return volume;
}

bool FillPod(const Template& tmpl, const TemplateShape& shape, const PodValues& v, nlohmann::json* pod,
             std::string* why) {
  YAML::Node root;
  YAML::Node spec;
  YAML::Node containers;
  if (!ParseTemplate(tmpl, shape, &root, why) ||
      !kube::ChildOf(root, "spec", YAML::NodeType::Map, "spec", &spec, why) ||
      !kube::ChildOf(spec, "containers", YAML::NodeType::Sequence, "spec.containers", &containers, why))
    return false;
  YAML::Node container;
  bool found = false;
  for (std::size_t i = 0; i < containers.size() && !found; ++i)
    if ((found = kube::NameOf(containers[i]) == shape.container)) container.reset(containers[i]);
  if (!found) {
    *why = std::string("no container named \"") + shape.container +
           "\" in spec.containers: fiber puts the image, command and environment there";
    return false;
  }
  const bool master = std::string(shape.container) == kMasterRole;
  const std::string name = master ? MasterPodName(v.run_id) : PodName(v.run_id, v.worker_id);
  const std::string at = std::string("spec.containers[") + shape.container + "]";
  std::vector<YAML::Node> volumes;
  if (!v.secret_name.empty()) volumes.push_back(SecretVolume(v));
  spec["restartPolicy"] = kube::StringNode("Never");
  if (v.host_network) {
    spec["hostNetwork"] = kube::Tagged("true", kube::kBoolTag);
    // Without it, a host-network pod resolves names as its node does, not
    // through the cluster's DNS.
    spec["dnsPolicy"] = kube::StringNode("ClusterFirstWithHostNet");
  }
  return FillMetadata(root, name, v.namespace_name,
                      RunObjectLabels(v.labels, v.run_id, shape.container, master ? "" : v.worker_id),
                      v.annotations, v.owner_name, v.owner_uid, why) &&
         FillContainer(container, at, v, why) &&
         kube::ReplaceNamed(spec, "volumes", "spec.volumes", {kSecretVolume}, volumes, why) &&
         kube::YamlToJson(root, "", pod, why);
}

}  // namespace

std::string PodTemplatePath(const std::string& name) { return kTemplatesSubdir + "/" + name; }
std::string PodTemplatesDir() { return kSecretDir + "/" + kTemplatesSubdir; }

std::string PodName(const std::string& run_id, const std::string& worker_id) {
  return RunObjectName(run_id) + "-" + worker_id;
}
std::string MasterPodName(const std::string& run_id) { return PodName(run_id, kMasterRole); }

bool RenderPod(const Template& tmpl, const PodValues& values, nlohmann::json* pod, std::string* err) {
  const TemplateShape* shape = ShapeOf(tmpl.name);
  if (!shape || !shape->container) {
    *err = tmpl.origin + " is not a pod template";
    return false;
  }
  if (values.env.count(config::kSecretVariable)) {
    *err = std::string("the run's secret may not go into a pod's environment (") + config::kSecretVariable +
           "): pods read it from the run's Secret";
    return false;
  }
  if (values.worker_id.empty() && std::string(shape->container) == kWorkerRole) {
    *err = "a worker's pod needs the worker's id";
    return false;
  }
  if (!values.secret_name.empty() && values.secret_key.empty()) {
    *err = "no key named for the run's Secret " + values.secret_name;
    return false;
  }
  return GuardedFill(tmpl, [&](std::string* why) { return FillPod(tmpl, *shape, values, pod, why); }, err);
}

}  // namespace fiber::backend
