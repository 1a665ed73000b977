// The lookup from a run's backend name to its engine's adapter: the one
// place the command learns which engine keeps a run's records and can
// place its master.
#include <doctest/doctest.h>

#include "backend/engine_adapter.hpp"
#include "config/backend_names.hpp"

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

TEST_CASE("the engine rows are the backends the settings take, in their order") {
  std::vector<std::string> settings_names;
  for (const auto& b : fiber::config::kBackends) settings_names.push_back(b.name);
  CHECK(fiber::backend::AdapterNames() == settings_names);
}

TEST_CASE("the settings allow master: cluster exactly where an engine places a master") {
  for (const auto& b : fiber::config::kBackends) {
    CAPTURE(b.name);
    CHECK((PlacementOf(Of(b.name)) != nullptr) == b.places_master);
  }
}

TEST_CASE("an engine whose workers run images runs them on a container engine, or takes one to build") {
  for (const auto& b : fiber::config::kBackends) {
    CAPTURE(b.name);
    const bool containers = !fiber::config::EngineOf(b.name, "auto").empty();
    // Pods run images too, built or loaded in the engine setting's engine.
    if (containers) CHECK(fiber::backend::RunsImages(b.name));
  }
  CHECK(fiber::config::EngineOf("docker", "podman") == "docker");
  CHECK(fiber::config::EngineOf("container", "podman") == "podman");
  CHECK(fiber::config::EngineOf("kubernetes", "podman").empty());
  CHECK(fiber::config::ImageEngineOf("kubernetes", "podman") == "podman");
  CHECK(fiber::config::ImageEngineOf("podman", "docker") == "podman");
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
