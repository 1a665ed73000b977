#include "backend/backend.hpp"

#include <algorithm>

#include "backend/container/container_backend.hpp"
#include "backend/kubernetes/kubernetes_backend.hpp"
#include "backend/slurm/slurm_backend.hpp"
#include "backend/local/local_backend.hpp"

namespace fiber::backend {

namespace {

struct Known {
  const char* name;
  std::unique_ptr<Backend> (*make)(const config::Settings&);
  bool image = true;  // its workers run an image
};

// docker and podman are the container backend with its engine chosen; the
// container backend itself takes the engine setting (EngineOf).
const Known kBackends[] = {
    {"local",
     [](const config::Settings&) { return std::unique_ptr<Backend>(std::make_unique<LocalBackend>()); },
     false},
    {"docker", ContainerBackend::Make},
    {"podman", ContainerBackend::Make},
    {"container", ContainerBackend::Make},
    {"kubernetes", KubernetesBackend::Make},
    {"slurm", SlurmBackend::Make, false},
};

}  // namespace

bool Backend::StartMany(const std::vector<Launch>& launches, std::string* err) {
  for (const Launch& launch : launches)
    if (!Start(launch, err)) return false;
  return true;
}

bool CheckName(const std::string& name, std::string* err) {
  std::string known;
  for (const auto& b : kBackends) {
    if (name == b.name) return true;
    known += (known.empty() ? "" : ", ") + std::string(b.name);
  }
  *err = "'" + name + "' is not a known backend (known: " + known + ")";
  return false;
}

std::vector<std::string> Names() {
  std::vector<std::string> names;
  for (const auto& b : kBackends) names.push_back(b.name);
  return names;
}

bool RunsImages(const std::string& name) {
  for (const auto& b : kBackends)
    if (name == b.name) return b.image;
  return false;
}

std::unique_ptr<Backend> Make(const config::Settings& settings, std::string* err) {
  for (const auto& b : kBackends)
    if (settings.backend == b.name) return b.make(settings);
  (void)CheckName(settings.backend, err);
  return nullptr;
}

}  // namespace fiber::backend
