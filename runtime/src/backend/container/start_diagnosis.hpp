// Why a program could not start inside its image, in words a user can act
// on. A missing program and a missing dynamic loader both make runc fail
// with the same ENOENT, before or just after the start, and an engine
// removes such a container (HostConfig.AutoRemove) before anyone could look
// into it; so the container backend checks both in the first container it
// creates, before starting it. Used by ContainerBackend::Start.
#pragma once

#include <string>

#include "engine/engine_client.hpp"

namespace fiber::backend {

/// Checks that program and its dynamic loader (read from the program on
/// this machine) are in container id, created from image and not started;
/// false with *err naming the one missing, or the engine's error.
[[nodiscard]] bool CheckProgramIn(const engine::Client& engine, const std::string& id,
                                  const std::string& image, const std::string& program,
                                  std::string* err);

/// One line saying why a container of image could not run program, given
/// the engine's error for its start.
std::string DescribeStartFailure(const std::string& image, const std::string& program,
                                 const std::string& engine_error);

}  // namespace fiber::backend
