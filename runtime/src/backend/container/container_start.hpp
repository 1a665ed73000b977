// How one worker's container is made and started, on the container
// backend's start queue (container_backend.hpp): created from the run's
// image with the worker's bootstrap as its environment, the run's key put
// in as a file, the program and its loader checked in the first container,
// attached to before it starts (container_output.hpp), then started. Plain
// functions; thread-safe as the engine client is.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "backend/backend.hpp"
#include "backend/container/container_output.hpp"
#include "config/settings.hpp"
#include "engine/engine_client.hpp"

namespace fiber::backend {

/// Where the secret's file is put in a worker's container.
inline constexpr const char* kSecretDir = "/.fiber";
inline constexpr const char* kSecretFile = "/.fiber/client_key";

/// The engine's configuration of launch's container, running command, on
/// an engine of engine_kind ("docker", "podman").
nlohmann::json WorkerContainerConfig(const std::string& engine_kind, const config::Settings& settings,
                                     const Launch& launch, const std::vector<std::string>& command);

/// Creates, keys, attaches to (*output then follows it, among outputs) and
/// starts launch's container, *id; check_program: CheckProgramIn it first. False
/// with *err, in words a user can act on, and no container left, when it
/// cannot.
[[nodiscard]] bool StartWorkerContainer(const engine::Client& client, const config::Settings& settings,
                                        const Launch& launch, bool check_program, std::string* id,
                                        http::StreamSet& outputs, std::unique_ptr<ContainerOutput>* output,
                                        std::string* err);

}  // namespace fiber::backend
