// The run's Secret from run.yaml: the workers' key and fiber's labels, and
// the key redacted where the dry run prints it.
#include <doctest/doctest.h>
#include <yaml-cpp/yaml.h>

#include <vector>

#include "backend/kubernetes/kubernetes_dry_run.hpp"
#include "backend/kubernetes/run_secret.hpp"
#include "support/manifests.hpp"

using fiber::backend::RenderRun;
using fiber::backend::RunValues;
using nlohmann::json;

namespace {

RunValues Run() {
  RunValues v;
  v.run_id = "0123456789ab";
  v.namespace_name = "fiber-test";
  v.secret_key = fiber::backend::kClientKeyItem;
  v.secret_value = kSecretValue;
  return v;
}

}  // namespace

TEST_CASE("the run's Secret holds the workers' key and fiber's labels; the dry run shows it redacted") {
  json run;
  std::string err;
  RunValues v = Run();
  v.labels = {{"team", "ml"}};
  REQUIRE(RenderRun(Load(fiber::backend::kRunTemplate), v, &run, &err));
  CHECK(run["kind"] == "Secret");
  CHECK(run["metadata"]["name"] == "fiber-0123456789ab");
  CHECK(run["metadata"]["namespace"] == "fiber-test");
  CHECK(run["metadata"]["labels"] ==
        json({{"fiber.run", "0123456789ab"}, {"fiber.role", "run"}, {"team", "ml"}}));
  CHECK(run["type"] == "Opaque");
  CHECK(run["stringData"] == json({{"client-key", kSecretValue}}));
  CHECK_FALSE(run["metadata"].contains("ownerReferences"));

  const json pod = Pod(Load(fiber::backend::kWorkerPodTemplate), Worker());
  const std::string yaml = fiber::backend::DryRunYaml({run, pod});
  CHECK(yaml.find(kSecretValue) == std::string::npos);
  const std::vector<YAML::Node> docs = YAML::LoadAll(yaml);
  REQUIRE(docs.size() == 2);
  CHECK(docs[0]["stringData"]["client-key"].as<std::string>() == "<redacted>");
  CHECK(docs[1]["metadata"]["name"].as<std::string>() == "fiber-0123456789ab-w3");
}
