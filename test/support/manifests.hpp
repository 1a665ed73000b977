// For the tests of the Kubernetes objects fiber renders from its templates
// (manifest_template_test, pod_template_test, run_secret_test,
// kubernetes_dry_run_test, yaml_json_test): a template loaded, a worker's
// pod values and its pod, each failing the test when it cannot be had, and
// YAML read back as kubectl reads it.
#pragma once

#include <doctest/doctest.h>
#include <yaml-cpp/yaml.h>

#include <string>

#include "backend/kubernetes/manifest_template.hpp"
#include "backend/kubernetes/pod_template.hpp"
#include "backend/kubernetes/run_secret.hpp"
#include "kube/yaml_json.hpp"

/// The workers' key of the tests' runs: in the run's Secret, and nowhere
/// else.
inline const std::string kSecretValue = "rq:Zp8v&Wn%secret-value-of-the-run";

/// A worker-pod.yaml with no more than fiber needs.
inline const std::string kMinimalWorker =
    "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n    - name: worker\n";

/// The template `name`, from dir ("": fiber's own).
inline fiber::backend::Template Load(const std::string& name, const std::string& dir = "") {
  fiber::backend::Template t;
  std::string err;
  INFO(err);
  REQUIRE(fiber::backend::LoadTemplate(name, dir, &t, &err));
  return t;
}

/// What fiber puts into a worker's pod, as the backend would.
inline fiber::backend::PodValues Worker() {
  fiber::backend::PodValues v;
  v.run_id = "0123456789ab";
  v.worker_id = "w3";
  v.namespace_name = "fiber-test";
  v.image = "127.0.0.1:35000/fiber/prog:1";
  v.command = {"/prog", "--size", "10"};
  v.env = {{"FIBER_MASTER_ENDPOINT", "tcp://10.0.0.1:5555"}, {"FIBER_RUN_ID", "0123456789ab"}};
  v.secret_name = fiber::backend::RunObjectName(v.run_id);
  v.secret_key = fiber::backend::kClientKeyItem;
  v.owner_name = v.secret_name;
  v.owner_uid = "6b1f7a2e-0000-4000-8000-000000000001";
  return v;
}

inline nlohmann::json Pod(const fiber::backend::Template& t, const fiber::backend::PodValues& v) {
  nlohmann::json pod;
  std::string err;
  INFO(err);
  REQUIRE(fiber::backend::RenderPod(t, v, &pod, &err));
  return pod;
}

/// What kubectl would send for YAML text: parsed, then as JSON.
inline nlohmann::json ReadBack(const std::string& yaml) {
  nlohmann::json out;
  std::string err;
  INFO(err);
  REQUIRE(fiber::kube::YamlToJson(YAML::Load(yaml), "", &out, &err));
  return out;
}
