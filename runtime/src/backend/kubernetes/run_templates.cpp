#include "backend/kubernetes/run_templates.hpp"

#include <sys/stat.h>
#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include "backend/kubernetes/builtin_templates.hpp"
#include "backend/labels.hpp"
#include "config/variables.hpp"
#include "kube/cluster_access.hpp"
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

/// What each template makes, and for a pod, the container fiber fills.
struct Shape {
  const char* name;
  const char* kind;
  const char* container;  // nullptr: no pod
};
constexpr Shape kShapes[] = {
    {kRunTemplate, "Secret", nullptr},
    {kWorkerPodTemplate, "Pod", kWorkerRole},
    {kMasterPodTemplate, "Pod", kMasterRole},
};

const Shape* ShapeOf(const std::string& name) {
  for (const Shape& shape : kShapes)
    if (name == shape.name) return &shape;
  return nullptr;
}

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

/// A new string node: a value fiber inserts is a string, whatever it looks
/// like, and takes no tag from what it replaces.
YAML::Node StringNode(const std::string& value) { return YAML::Node(value); }

YAML::Node Tagged(const std::string& value, const char* tag) {
  YAML::Node node(value);
  node.SetTag(tag);
  return node;
}

/// parent[key] as a mapping (`kind` Map) or a list (Sequence), made when
/// absent or empty; false with *why when it is something else.
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

/// parent[key], a list, without its entries named in `names`; then
/// `added` appended.
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

/// Parses the template as one object of its kind; false with *why.
bool Parse(const Template& tmpl, const Shape& shape, YAML::Node* root, std::string* why) {
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
    *why = std::string("is ") + Describe(documents[0]) + ", not a Kubernetes " + shape.kind;
    return false;
  }
  const YAML::Node kind = documents[0]["kind"];
  if (kind && !(kind.IsScalar() && kind.Scalar() == shape.kind)) {
    *why = std::string("kind is ") + (kind.IsScalar() ? kind.Scalar() : Describe(kind)) + ", but " +
           tmpl.name + " makes a " + shape.kind;
    return false;
  }
  root->reset(documents[0]);
  (*root)["apiVersion"] = StringNode("v1");
  (*root)["kind"] = StringNode(shape.kind);
  return true;
}

/// Sets the metadata fiber owns: name, namespace, fiber's labels over the
/// template's and the caller's, fiber's annotations over the template's,
/// and the owner.
bool FillMetadata(YAML::Node root, const std::string& name, const std::string& namespace_name,
                  const std::map<std::string, std::string>& labels,
                  const std::map<std::string, std::string>& annotations, const std::string& owner_name,
                  const std::string& owner_uid, std::string* why) {
  YAML::Node metadata;
  YAML::Node label_map;
  if (!ChildOf(root, "metadata", YAML::NodeType::Map, "metadata", &metadata, why) ||
      !ChildOf(metadata, "labels", YAML::NodeType::Map, "metadata.labels", &label_map, why))
    return false;
  metadata["name"] = StringNode(name);
  if (!namespace_name.empty())
    metadata["namespace"] = StringNode(namespace_name);
  else if (metadata["namespace"] && metadata["namespace"].IsScalar() && metadata["namespace"].Scalar().empty())
    metadata.remove("namespace");
  for (const auto& [key, value] : labels) label_map[key] = StringNode(value);
  if (!annotations.empty()) {
    YAML::Node annotation_map;
    if (!ChildOf(metadata, "annotations", YAML::NodeType::Map, "metadata.annotations", &annotation_map, why))
      return false;
    for (const auto& [key, value] : annotations) annotation_map[key] = StringNode(value);
  }
  if (owner_name.empty()) {
    metadata.remove("ownerReferences");
    return true;
  }
  YAML::Node owner(YAML::NodeType::Map);
  owner["apiVersion"] = StringNode("v1");
  owner["kind"] = StringNode("Secret");
  owner["name"] = StringNode(owner_name);
  if (!owner_uid.empty()) owner["uid"] = StringNode(owner_uid);
  YAML::Node owners(YAML::NodeType::Sequence);
  owners.push_back(owner);
  metadata["ownerReferences"] = owners;
  return true;
}

std::map<std::string, std::string> LabelsOf(const std::map<std::string, std::string>& extra,
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

/// Requests and limits alike, where the run gives a value.
bool FillResources(YAML::Node container, const std::string& at, const PodValues& v, std::string* why) {
  if (v.cpu_millis <= 0 && v.memory_mib <= 0 && v.gpu <= 0) return true;
  YAML::Node resources;
  if (!ChildOf(container, "resources", YAML::NodeType::Map, at + ".resources", &resources, why)) return false;
  for (const char* side : {"requests", "limits"}) {
    YAML::Node amounts;
    if (!ChildOf(resources, side, YAML::NodeType::Map, at + ".resources." + side, &amounts, why)) return false;
    if (v.cpu_millis > 0) amounts["cpu"] = StringNode(std::to_string(v.cpu_millis) + "m");
    if (v.memory_mib > 0) amounts["memory"] = StringNode(std::to_string(v.memory_mib) + "Mi");
    if (v.gpu > 0) amounts["nvidia.com/gpu"] = StringNode(std::to_string(v.gpu));
  }
  return true;
}

/// The container fiber fills: image, command, environment, resources and
/// the Secret's mount.
bool FillContainer(YAML::Node container, const std::string& at, const PodValues& v, std::string* why) {
  if (!v.image.empty()) {
    container["image"] = StringNode(v.image);
  } else if (!container["image"] || !container["image"].IsScalar() || container["image"].Scalar().empty()) {
    *why = at + " has no image, and the run gives none";
    return false;
  }
  if (!v.image_pull_policy.empty()) container["imagePullPolicy"] = StringNode(v.image_pull_policy);
  if (!v.command.empty()) {
    YAML::Node command(YAML::NodeType::Sequence);
    YAML::Node args(YAML::NodeType::Sequence);
    command.push_back(StringNode(v.command.front()));
    for (std::size_t i = 1; i < v.command.size(); ++i) args.push_back(StringNode(v.command[i]));
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
    entry["name"] = StringNode(name);
    entry["value"] = StringNode(value);
    names.insert(name);
    entries.push_back(entry);
  }
  for (const auto& [name, field] : v.env_from_fields) {
    YAML::Node ref(YAML::NodeType::Map);
    ref["fieldPath"] = StringNode(field);
    YAML::Node from(YAML::NodeType::Map);
    from["fieldRef"] = ref;
    YAML::Node entry(YAML::NodeType::Map);
    entry["name"] = StringNode(name);
    entry["valueFrom"] = from;
    if (names.insert(name).second) entries.push_back(entry);
  }
  if (!ReplaceNamed(container, "env", at + ".env", names, entries, why)) return false;

  std::vector<YAML::Node> mounts;
  if (!v.secret_name.empty()) {
    YAML::Node mount(YAML::NodeType::Map);
    mount["name"] = StringNode(kSecretVolume);
    mount["mountPath"] = StringNode(kSecretDir);
    mount["readOnly"] = Tagged("true", kube::kBoolTag);
    mounts.push_back(mount);
  }
  return ReplaceNamed(container, "volumeMounts", at + ".volumeMounts", {kSecretVolume}, mounts, why) &&
         FillResources(container, at, v, why);
}

/// The run's Secret as a volume of one file: only the key asked for.
YAML::Node SecretVolume(const PodValues& v) {
  YAML::Node item(YAML::NodeType::Map);
  item["key"] = StringNode(v.secret_key);
  item["path"] = StringNode(kSecretFileName);
  YAML::Node items(YAML::NodeType::Sequence);
  items.push_back(item);
  for (const auto& [key, path] : v.secret_files) {
    YAML::Node more(YAML::NodeType::Map);
    more["key"] = StringNode(key);
    more["path"] = StringNode(path);
    items.push_back(more);
  }
  YAML::Node secret(YAML::NodeType::Map);
  secret["secretName"] = StringNode(v.secret_name);
  secret["defaultMode"] = Tagged(std::to_string(kSecretFileMode), kube::kIntTag);
  secret["items"] = items;
  YAML::Node volume(YAML::NodeType::Map);
  volume["name"] = StringNode(kSecretVolume);
  volume["secret"] = secret;
  return volume;
}

bool FillPod(const Template& tmpl, const Shape& shape, const PodValues& v, nlohmann::json* pod,
             std::string* why) {
  YAML::Node root;
  YAML::Node spec;
  YAML::Node containers;
  if (!Parse(tmpl, shape, &root, why) ||
      !ChildOf(root, "spec", YAML::NodeType::Map, "spec", &spec, why) ||
      !ChildOf(spec, "containers", YAML::NodeType::Sequence, "spec.containers", &containers, why))
    return false;
  YAML::Node container;
  bool found = false;
  for (std::size_t i = 0; i < containers.size() && !found; ++i)
    if ((found = NameOf(containers[i]) == shape.container)) container.reset(containers[i]);
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
  spec["restartPolicy"] = StringNode("Never");
  if (v.host_network) {
    spec["hostNetwork"] = Tagged("true", kube::kBoolTag);
    // Without it, a host-network pod resolves names as its node does, not
    // through the cluster's DNS.
    spec["dnsPolicy"] = StringNode("ClusterFirstWithHostNet");
  }
  return FillMetadata(root, name, v.namespace_name,
                      LabelsOf(v.labels, v.run_id, shape.container, master ? "" : v.worker_id), v.annotations,
                      v.owner_name, v.owner_uid, why) &&
         FillContainer(container, at, v, why) &&
         ReplaceNamed(spec, "volumes", "spec.volumes", {kSecretVolume}, volumes, why) &&
         kube::YamlToJson(root, "", pod, why);
}

bool FillRun(const Template& tmpl, const Shape& shape, const RunValues& v, nlohmann::json* run,
             std::string* why) {
  YAML::Node root;
  YAML::Node string_data;
  if (!Parse(tmpl, shape, &root, why) ||
      !FillMetadata(root, RunObjectName(v.run_id), v.namespace_name,
                    LabelsOf(v.labels, v.run_id, kRunRole, ""), {}, "", "", why) ||
      !ChildOf(root, "stringData", YAML::NodeType::Map, "stringData", &string_data, why))
    return false;
  string_data[v.secret_key] = StringNode(v.secret_value);
  for (const auto& [key, text] : v.files) string_data[key] = StringNode(text);
  // stringData wins over data on the server; a stale copy in data would
  // only confuse a reader.
  if (root["data"] && root["data"].IsMap()) root["data"].remove(v.secret_key);
  return kube::YamlToJson(root, "", run, why);
}

/// fill(), with any error yaml-cpp throws (none is expected: every node is
/// checked before it is used) as a failure rather than an escape.
template <typename Fill>
bool Guarded(Fill fill, std::string* why) {
  try {
    return fill();
  } catch (const YAML::Exception& e) {
    *why = e.what();
    return false;
  }
}

/// Renders the template with stand-in values: a template that loads is
/// one that renders.
bool Check(const Template& tmpl, const Shape& shape, std::string* err) {
  nlohmann::json unused;
  if (!shape.container) {
    RunValues v;
    v.run_id = "check";
    v.secret_key = kClientKeyItem;
    v.secret_value = "check";
    return RenderRun(tmpl, v, &unused, err);
  }
  PodValues v;
  v.run_id = "check";
  if (std::string(shape.container) == kWorkerRole) v.worker_id = "w0";
  v.image = "check";
  v.command = {"/check", "--check"};
  v.env = {{"FIBER_CHECK", "1"}};
  v.secret_name = RunObjectName(v.run_id);
  v.secret_key = kClientKeyItem;
  v.cpu_millis = 1;
  v.memory_mib = 1;
  v.gpu = 1;
  v.owner_name = v.secret_name;
  v.owner_uid = "check";
  return RenderPod(tmpl, v, &unused, err);
}

}  // namespace

std::string PodTemplatePath(const std::string& name) { return kTemplatesSubdir + "/" + name; }
std::string PodTemplatesDir() { return kSecretDir + "/" + kTemplatesSubdir; }

std::string RunObjectName(const std::string& run_id) { return RunName(run_id); }
std::string PodName(const std::string& run_id, const std::string& worker_id) {
  return RunObjectName(run_id) + "-" + worker_id;
}
std::string MasterPodName(const std::string& run_id) { return PodName(run_id, kMasterRole); }

bool LoadTemplate(const std::string& name, const std::string& user_dir, Template* out, std::string* err) {
  const Shape* shape = ShapeOf(name);
  if (!shape) {
    *err = "no Kubernetes template is named " + name + " (there are " + kRunTemplate + ", " +
           kWorkerPodTemplate + " and " + kMasterPodTemplate + ")";
    return false;
  }
  Template tmpl;
  tmpl.name = name;
  struct stat st {};
  if (!user_dir.empty()) {
    if (stat(user_dir.c_str(), &st) != 0) {
      *err = "the Kubernetes templates directory " + user_dir + ": " + std::strerror(errno);
      return false;
    }
    if (!S_ISDIR(st.st_mode)) {
      *err = "the Kubernetes templates directory " + user_dir + " is not a directory";
      return false;
    }
    const std::string path = user_dir + "/" + name;
    if (stat(path.c_str(), &st) == 0) {
      tmpl.origin = path;
      if (!kube::ReadCredentialFile(path, &tmpl.text, err)) return false;
    }
  }
  if (tmpl.origin.empty()) {
    for (std::size_t i = 0; i < kBuiltinTemplateCount; ++i)
      if (name == kBuiltinTemplates[i].name) tmpl.text = kBuiltinTemplates[i].text;
    tmpl.origin = "built-in " + name;
  }
  if (!Check(tmpl, *shape, err)) return false;
  *out = std::move(tmpl);
  return true;
}

bool RenderPod(const Template& tmpl, const PodValues& values, nlohmann::json* pod, std::string* err) {
  const Shape* shape = ShapeOf(tmpl.name);
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
  std::string why;
  if (!Guarded([&] { return FillPod(tmpl, *shape, values, pod, &why); }, &why)) {
    *err = tmpl.origin + ": " + why;
    return false;
  }
  return true;
}

bool RenderRun(const Template& tmpl, const RunValues& values, nlohmann::json* run, std::string* err) {
  const Shape* shape = ShapeOf(tmpl.name);
  if (!shape || shape->container) {
    *err = tmpl.origin + " is not the run's template";
    return false;
  }
  std::string why;
  if (!Guarded([&] { return FillRun(tmpl, *shape, values, run, &why); }, &why)) {
    *err = tmpl.origin + ": " + why;
    return false;
  }
  return true;
}

std::string DryRunYaml(const std::vector<nlohmann::json>& objects) {
  std::string out;
  for (nlohmann::json object : objects) {
    if (object.value("kind", "") == "Secret")
      for (const char* field : {"data", "stringData"})
        if (object.contains(field) && object[field].is_object())
          for (auto& value : object[field]) value = "<redacted>";
    if (!out.empty()) out += "---\n";
    out += kube::JsonToYaml(object);
  }
  return out;
}

}  // namespace fiber::backend
