#include "run_engine.hpp"

#include <cstdlib>

#include "backend/container/container_backend.hpp"

namespace fiber::cli {

namespace {

std::string SettingOf(const RunRecord& run, const std::string& key) {
  const auto it = run.settings.find(key);
  return it == run.settings.end() ? "" : it->second;
}

std::string EngineOfRun(const RunRecord& run) {
  return backend::EngineOf(run.backend, SettingOf(run, "engine"));
}

}  // namespace

bool RunsInContainers(const RunRecord& run) { return !EngineOfRun(run).empty(); }

bool ConnectRunEngine(const RunRecord& run, engine::Client* out, std::string* err) {
  const std::string engine = EngineOfRun(run);
  if (engine.empty()) {
    *err = "run " + run.id + " runs no containers (" + run.backend + " backend)";
    return false;
  }
  const config::Getenv getenv = [](const char* name) -> const char* { return std::getenv(name); };
  return engine::Client::Connect(engine, getenv, out, err);
}

}  // namespace fiber::cli
