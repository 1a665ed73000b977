// Loading a packaged image into the local container engine (Docker, or
// Podman's Docker-compatible service) through its client (engine/): POST
// /images/load with a docker-archive tarball (manifest.json, the config,
// the layer), tagged with the image's reference.
#pragma once

#include <string>

#include "engine/engine_client.hpp"
#include "image/package.hpp"

namespace fiber::image {

/// Makes img, as img.Reference(), an image of engine; nothing is sent when
/// the engine has it already. *loaded: whether it was sent. False with *err
/// ("cannot reach the container engine at SOCKET: ...", or the engine's own
/// message).
[[nodiscard]] bool LoadIntoEngine(const Image& img, const engine::Client& engine, bool* loaded,
                                  std::string* err);

}  // namespace fiber::image
