// The backends and engines the backend and engine settings name, as plain
// data with what each can do, so that settings are checked without knowing
// the backends: backend/engine_adapter.cpp gives each backend row its
// engine's pieces (a test pins that both list the same names), engine/
// finds each engine's socket. Constants and pure functions: thread-safe.
#pragma once

#include <string>

namespace fiber::config {

/// A backend as the settings know it: its name and its capabilities.
struct KnownBackend {
  const char* name;
  /// The container engine its workers run on: an engine's name, "" for
  /// none (no containers), nullptr for the one the engine setting names.
  const char* engine;
  /// It can run the program itself as master in the cluster (master: cluster).
  bool places_master;
};

/// Every backend, in the order an error lists them. docker and podman are
/// the container backend with its engine chosen.
inline constexpr KnownBackend kBackends[] = {
    {"local", "", false},      {"docker", "docker", false}, {"podman", "podman", false},
    {"container", nullptr, false}, {"kubernetes", "", true}, {"slurm", "", true},
};

/// The engines fiber talks to, as the `engine` setting names them.
inline constexpr const char* kEngineNames[] = {"auto", "docker", "podman"};

/// The row of backend name; nullptr for an unknown one.
const KnownBackend* FindBackend(const std::string& name);

/// False with "'x' is not a known backend (known: local, ...)" unless name
/// is one of kBackends.
[[nodiscard]] bool CheckBackendName(const std::string& name, std::string* err);

/// Whether backend name can run the program as master in the cluster.
bool PlacesMaster(const std::string& name);

/// The engine backend runs its workers on: "docker" and "podman" for
/// those backends, engine_setting for "container"; "" for a backend
/// without containers.
std::string EngineOf(const std::string& backend, const std::string& engine_setting);

/// The engine a run's image is built in or loaded into: the one its
/// workers run on (EngineOf) when they run in containers, else the engine
/// setting (fiber image build, with no container backend).
std::string ImageEngineOf(const std::string& backend, const std::string& engine_setting);

}  // namespace fiber::config
