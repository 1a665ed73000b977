// Where the container engine listens: the `engine` setting (docker, podman or
// auto) picks the candidates, as each engine's own CLI looks: DOCKER_HOST,
// else /var/run/docker.sock (docker); CONTAINER_HOST, else the rootless then
// the rootful Podman socket (podman); auto tries Docker's, then Podman's. The first that exists is the engine's; when it exists but is
// not ours to use, or none does, the error names the socket and the cause.
#pragma once

#include <string>
#include <vector>

#include "os/environment.hpp"

namespace fiber::engine {

/// The variables CandidateSockets reads: what a run records of where its
/// engine was (backend/engine_adapter.hpp: EngineEnvironment).
inline constexpr const char* kSocketVariables[] = {"DOCKER_HOST", "CONTAINER_HOST", "XDG_RUNTIME_DIR"};

/// Unix sockets to try for engine, in order (unix:// URLs in DOCKER_HOST
/// and CONTAINER_HOST are taken; other schemes are skipped).
std::vector<std::string> CandidateSockets(const std::string& engine, const os::Getenv& getenv);

/// The first candidate that exists, checked as usable by this user; false
/// with *err: "no container engine: ... does not exist" or "permission
/// denied on ...".
[[nodiscard]] bool FindSocket(const std::string& engine, const os::Getenv& getenv,
                              std::string* socket, std::string* err);

}  // namespace fiber::engine
