#include "backend/backend.hpp"

#include <algorithm>
#include <iterator>

#include "backend/container/container_backend.hpp"
#include "backend/kubernetes/kubernetes_backend.hpp"
#include "backend/slurm/slurm_backend.hpp"
#include "config/backend_names.hpp"
#include "backend/local/local_backend.hpp"

namespace fiber::backend {

namespace {

struct Known {
  std::unique_ptr<Backend> (*make)(const config::Settings&);
  bool image = true;  // its workers run an image
};

// One for each of config::kBackendNames, in its order. docker and podman
// are the container backend with its engine chosen; the container backend
// itself takes the engine setting (EngineOf).
const Known kBackends[] = {
    {[](const config::Settings&) { return std::unique_ptr<Backend>(std::make_unique<LocalBackend>()); },
     false},
    {ContainerBackend::Make},
    {ContainerBackend::Make},
    {ContainerBackend::Make},
    {KubernetesBackend::Make},
    {SlurmBackend::Make, false},
};
static_assert(std::size(kBackends) == std::size(config::kBackendNames));

// The backend called name; nullptr for none.
const Known* Find(const std::string& name) {
  for (std::size_t i = 0; i < std::size(kBackends); ++i)
    if (name == config::kBackendNames[i]) return &kBackends[i];
  return nullptr;
}

}  // namespace

bool Backend::StartMany(const std::vector<Launch>& launches, std::string* err) {
  for (const Launch& launch : launches)
    if (!Start(launch, err)) return false;
  return true;
}


bool RunsImages(const std::string& name) {
  const Known* b = Find(name);
  return b && b->image;
}

std::unique_ptr<Backend> Make(const config::Settings& settings, std::string* err) {
  if (const Known* b = Find(settings.backend)) return b->make(settings);
  (void)config::CheckBackendName(settings.backend, err);
  return nullptr;
}

}  // namespace fiber::backend
