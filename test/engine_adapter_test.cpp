// The lookup from a run's backend name to its engine's adapter: the one
// place the command learns which engine keeps a run's records and can
// place its master.
#include <doctest/doctest.h>

#include "backend/engine_adapter.hpp"

using fiber::backend::PlacementOf;
using fiber::backend::RecordsOf;
using fiber::backend::RunPlace;

namespace {

RunPlace Of(const std::string& backend, const std::string& engine = "") {
  RunPlace run;
  run.id = "r1";
  run.backend = backend;
  if (!engine.empty()) run.settings["engine"] = engine;
  return run;
}

std::string ListOf(const RunPlace& run) {
  const auto* records = RecordsOf(run);
  return records ? records->words().list : "";
}

}  // namespace

TEST_CASE("each backend's runs are listed from its engine's records under the engine's own words") {
  CHECK(ListOf(Of("docker")) == "containers");
  CHECK(ListOf(Of("podman")) == "containers");
  CHECK(ListOf(Of("container", "podman")) == "containers");
  CHECK(ListOf(Of("kubernetes")) == "pods");
  CHECK(ListOf(Of("slurm")) == "jobs");
  CHECK(std::string(RecordsOf(Of("slurm"))->words().thing) == "Slurm job");
}

TEST_CASE("local workers leave no records outside the run's directory") {
  CHECK(RecordsOf(Of("local")) == nullptr);
  CHECK(RecordsOf(Of("no-such-backend")) == nullptr);
}

TEST_CASE("only Kubernetes and Slurm place a master in the cluster") {
  CHECK(PlacementOf(Of("kubernetes")) != nullptr);
  CHECK(PlacementOf(Of("slurm")) != nullptr);
  CHECK(PlacementOf(Of("local")) == nullptr);
  CHECK(PlacementOf(Of("docker")) == nullptr);
}

TEST_CASE("a backend that cannot work as set is refused before the run, in its engine's words") {
  fiber::config::Settings settings;
  std::string err;
  settings.backend = "local";
  CHECK(fiber::backend::CheckReady(settings, false, &err));
  settings.backend = "kubernetes";
  CHECK_FALSE(fiber::backend::CheckReady(settings, false, &err));
  CHECK(err.find("the kubernetes backend needs an image its nodes can pull") == 0);
  CHECK(fiber::backend::CheckReady(settings, true, &err));  // --build makes one
  settings.registry = "registry.example/fiber";
  CHECK(fiber::backend::CheckReady(settings, false, &err));
}

TEST_CASE("only a Kubernetes run has objects for --dry-run -o yaml to print") {
  const auto has = [](const char* backend) { return fiber::backend::DryRunOf(backend) != nullptr; };
  CHECK(has("kubernetes"));
  CHECK_FALSE(has("slurm"));
  CHECK_FALSE(has("docker"));
}
