// The names the backend and engine settings take, as plain data, so that
// settings are checked without knowing the backends: backend/backend.cpp
// gives each backend name its maker, engine/ finds each engine's socket.
// Constants and a pure check: thread-safe.
#pragma once

#include <string>

namespace fiber::config {

/// Every backend's name, in the order an error lists them. docker and
/// podman are the container backend with its engine chosen.
inline constexpr const char* kBackendNames[] = {"local",     "docker",     "podman",
                                                "container", "kubernetes", "slurm"};

/// The engines fiber talks to, as the `engine` setting names them.
inline constexpr const char* kEngineNames[] = {"auto", "docker", "podman"};

/// False with "'x' is not a known backend (known: local, ...)" unless name
/// is one of kBackendNames.
[[nodiscard]] bool CheckBackendName(const std::string& name, std::string* err);

}  // namespace fiber::config
