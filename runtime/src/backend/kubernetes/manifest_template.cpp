#include "backend/kubernetes/manifest_template.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "backend/kubernetes/builtin_templates.hpp"
#include "backend/kubernetes/pod_template.hpp"
#include "backend/kubernetes/run_secret.hpp"
#include "backend/labels.hpp"
#include "kube/cluster_access.hpp"

namespace fiber::backend {
namespace {

constexpr TemplateShape kShapes[] = {
    {kRunTemplate, "Secret", nullptr},
    {kWorkerPodTemplate, "Pod", kWorkerRole},
    {kMasterPodTemplate, "Pod", kMasterRole},
};

/// Renders the template with stand-in values: a template that loads is
/// one that renders.
bool RendersWithStandIns(const Template& tmpl, const TemplateShape& shape, std::string* err) {
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

const TemplateShape* ShapeOf(const std::string& name) {
  for (const TemplateShape& shape : kShapes)
    if (name == shape.name) return &shape;
  return nullptr;
}

bool LoadTemplate(const std::string& name, const std::string& user_dir, Template* out, std::string* err) {
  const TemplateShape* shape = ShapeOf(name);
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
  if (!RendersWithStandIns(tmpl, *shape, err)) return false;
  *out = std::move(tmpl);
  return true;
}

}  // namespace fiber::backend
