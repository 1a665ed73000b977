// fiber's Kubernetes templates as a run loads them: fiber's own, a user's
// edited copies beside them, and one clear error, naming the file, for a
// template fiber cannot use. What they render: pod_template_test.cpp and
// run_secret_test.cpp.
#include <doctest/doctest.h>

#include "backend/kubernetes/manifest_template.hpp"
#include "support/manifests.hpp"
#include "support/temp_dir.hpp"

using fiber::backend::LoadTemplate;
using fiber::backend::Template;

namespace {

/// The error LoadTemplate gives for a worker-pod.yaml holding text.
std::string WorkerTemplateError(const std::string& text) {
  fiber::testing::TempDir dir;
  const std::string path = dir.write(fiber::backend::kWorkerPodTemplate, text);
  Template t;
  std::string err;
  CHECK_FALSE(LoadTemplate(fiber::backend::kWorkerPodTemplate, dir.path(), &t, &err));
  CHECK(err.rfind(path + ": ", 0) == 0);  // names the file first
  CHECK(err.find('\n') == std::string::npos);
  return err;
}

}  // namespace

TEST_CASE("fiber's own templates load, comments and all, and say which fields fiber sets") {
  for (const char* name : {fiber::backend::kRunTemplate, fiber::backend::kWorkerPodTemplate,
                           fiber::backend::kMasterPodTemplate}) {
    const Template t = Load(name);
    CHECK(t.origin == std::string("built-in ") + name);
    CHECK(t.text.rfind("# ", 0) == 0);
    CHECK(t.text.find("# set by fiber") != std::string::npos);
    CHECK(t.text.back() == '\n');
  }
  CHECK(Load(fiber::backend::kWorkerPodTemplate).text.find("\"worker\"") != std::string::npos);
}

TEST_CASE("a templates directory without a copy of a template uses fiber's own") {
  fiber::testing::TempDir dir;
  dir.write(fiber::backend::kWorkerPodTemplate, kMinimalWorker);
  CHECK(Load(fiber::backend::kWorkerPodTemplate, dir.path()).origin == dir.path() + "/worker-pod.yaml");
  CHECK(Load(fiber::backend::kRunTemplate, dir.path()).origin == "built-in run.yaml");
}

TEST_CASE("a templates directory that is not there is an error naming it") {
  Template t;
  std::string err;
  CHECK_FALSE(LoadTemplate(fiber::backend::kWorkerPodTemplate, "/nonexistent/fiber-templates", &t, &err));
  CHECK(err.find("/nonexistent/fiber-templates") != std::string::npos);
  CHECK(err.find("No such file or directory") != std::string::npos);
}

TEST_CASE("a template fiber cannot use gives one error naming the file and what is wrong") {
  CHECK(WorkerTemplateError("spec:\n  containers: [\n") .find("not valid YAML: line 3") != std::string::npos);
  CHECK(WorkerTemplateError("").find("is empty") != std::string::npos);
  CHECK(WorkerTemplateError("# only a comment\n").find("is empty") != std::string::npos);
  CHECK(WorkerTemplateError(kMinimalWorker + "---\n" + kMinimalWorker).find("holds 2 YAML documents") !=
        std::string::npos);
  CHECK(WorkerTemplateError("- a\n- b\n").find("is a list, not a Kubernetes Pod") != std::string::npos);
  CHECK(WorkerTemplateError("kind: Deployment\n").find("kind is Deployment, but worker-pod.yaml makes a Pod") !=
        std::string::npos);
  CHECK(WorkerTemplateError("kind: Pod\n").find("no container named \"worker\" in spec.containers") !=
        std::string::npos);
  CHECK(WorkerTemplateError("kind: Pod\nspec:\n  containers:\n    - name: main\n")
            .find("no container named \"worker\"") != std::string::npos);
  CHECK(WorkerTemplateError("kind: Pod\nspec:\n  containers: worker\n")
            .find("spec.containers is a single value, not a list") != std::string::npos);
  CHECK(WorkerTemplateError(kMinimalWorker + "      env: FOO=1\n")
            .find("spec.containers[worker].env is a single value, not a list") != std::string::npos);
  CHECK(WorkerTemplateError(kMinimalWorker + "metadata:\n  labels: [a]\n")
            .find("metadata.labels is a list, not a mapping") != std::string::npos);
  CHECK(WorkerTemplateError(kMinimalWorker + "  nodeSelector: {a: b, a: c}\n")
            .find("spec.nodeSelector.a is given twice") != std::string::npos);
  CHECK(WorkerTemplateError(kMinimalWorker + "  hostNetwork: !!int yes\n")
            .find("spec.hostNetwork") != std::string::npos);
  CHECK(WorkerTemplateError(kMinimalWorker + "  priority: .inf\n")
            .find("spec.priority: .inf is a number JSON cannot hold") != std::string::npos);
}

TEST_CASE("a pod template's errors are the pod's; the run's template is checked as a Secret") {
  fiber::testing::TempDir dir;
  const std::string path = dir.write(fiber::backend::kRunTemplate, "kind: ConfigMap\n");
  Template t;
  std::string err;
  CHECK_FALSE(LoadTemplate(fiber::backend::kRunTemplate, dir.path(), &t, &err));
  CHECK(err == path + ": kind is ConfigMap, but run.yaml makes a Secret");
  dir.write(fiber::backend::kRunTemplate, "kind: Secret\nstringData: [x]\n");
  CHECK_FALSE(LoadTemplate(fiber::backend::kRunTemplate, dir.path(), &t, &err));
  CHECK(err == path + ": stringData is a list, not a mapping");
}
