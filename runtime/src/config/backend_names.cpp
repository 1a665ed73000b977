#include "config/backend_names.hpp"

namespace fiber::config {

const KnownBackend* FindBackend(const std::string& name) {
  for (const KnownBackend& b : kBackends)
    if (name == b.name) return &b;
  return nullptr;
}

bool CheckBackendName(const std::string& name, std::string* err) {
  if (FindBackend(name)) return true;
  std::string known;
  for (const KnownBackend& b : kBackends) known += (known.empty() ? "" : ", ") + std::string(b.name);
  *err = "'" + name + "' is not a known backend (known: " + known + ")";
  return false;
}

bool PlacesMaster(const std::string& name) {
  const KnownBackend* b = FindBackend(name);
  return b && b->places_master;
}

std::string EngineOf(const std::string& backend, const std::string& engine_setting) {
  const KnownBackend* b = FindBackend(backend);
  if (!b) return "";
  return b->engine ? b->engine : engine_setting;
}

std::string ImageEngineOf(const std::string& backend, const std::string& engine_setting) {
  const std::string engine = EngineOf(backend, engine_setting);
  return engine.empty() ? engine_setting : engine;
}

}  // namespace fiber::config
